import type { MiddlewareHandler } from 'hono';
import { headerRef } from '../schemas/response-headers.js';
import type { AppEnv } from './app-env.js';

/**
 * An answer that shows a secret (a code, a token, a webhook secret) is never kept by a cache or a browser's
 * history: its route runs this middleware and documents `noStoreHeader(what)` on that answer.
 */
export const noStore: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.header('Cache-Control', 'no-store');
  await next();
};

/** The documented `Cache-Control` of an answer showing `what` (`the code`, `the token`). */
export function noStoreHeader(what: string) {
  return { 'Cache-Control': headerRef('Cache-Control', `Always \`no-store\`: ${what} is shown once.`) };
}
