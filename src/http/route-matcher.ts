import type { Result, Router as HonoRouter } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';

/**
 * Hono's default router (its SmartRouter: the RegExpRouter, or the TrieRouter where a route is beyond the
 * RegExpRouter, as the console's `/admin/codes/new` beside `/admin/codes/:id` under `/admin/*` is), with the
 * match of each path registered without a parameter or wildcard kept after its first request. The TrieRouter
 * walks its tree on every request (~12 µs for an install step here); a route's handlers for one method and
 * path never change once the first request has built the router, so the same answer is handed out again.
 * Only registered paths are kept: a path a client makes up is matched every time, and the memory stays bounded.
 */
export class StaticRouteCache<T> implements HonoRouter<T> {
  name = 'StaticRouteCache';
  readonly #router: HonoRouter<T> = new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] });
  /** `METHOD path` of every route registered without a parameter or wildcard. */
  readonly #staticRoutes = new Set<string>();
  readonly #matches = new Map<string, Result<T>>();

  add(method: string, path: string, handler: T): void {
    this.#router.add(method, path, handler);
    if (!/[:*{]/.test(path)) this.#staticRoutes.add(`${method} ${path}`);
  }

  match(method: string, path: string): Result<T> {
    const key = `${method} ${path}`;
    const kept = this.#matches.get(key);
    if (kept) return kept;
    const result = this.#router.match(method, path);
    if (this.#staticRoutes.has(key)) this.#matches.set(key, result);
    return result;
  }
}
