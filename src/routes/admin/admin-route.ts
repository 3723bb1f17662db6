import type { z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler, TypedResponse } from 'hono';
import type { Database } from '../../db/database.js';
import type { Page } from '../../domain/admin-lists/pagination.js';
import type { ErrorCode } from '../../errors.js';
import { requireScope, type AdminScope } from '../../http/admin-auth.js';
import { refuseControlCharacters } from '../../http/control-characters.js';
import { NDJSON, ndjsonExport, wantsNdjson } from '../../http/ndjson-export.js';
import type { AppEnv } from '../../http/app-env.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import { prose } from '../../openapi-prose.js';

/**
 * What every admin operation shares, spread into its `createRoute`: its tag, and the one declaration of
 * the scope it needs, which is both documented (the scope of its `adminToken` security requirement) and
 * enforced (the route's first middleware). Then the one control-character rule for every text of the
 * body, then `middleware`, the route's own; the body's schema comes after all of them.
 */
export function adminOperation(scope: AdminScope, ...middleware: MiddlewareHandler<AppEnv>[]) {
  return {
    tags: ['admin'],
    security: [{ adminToken: [scope] }],
    middleware: [requireScope(scope), refuseControlCharacters, ...middleware],
  };
}

/** The error responses of an admin route: its own codes plus the token's, its scope's and the bad input's. */
export function adminErrorResponses(...codes: ErrorCode[]) {
  return errorResponses(
    'validation_failed',
    'admin_token_invalid',
    'admin_scope_insufficient',
    'admin_api_disabled',
    ...codes,
  );
}

export const ADMIN_AUTH_SENTENCE =
  "Requires `Authorization: Bearer <token>`, `ADMIN_TOKEN` or a named operator token whose scope includes the one this operation's security requirement names (`read` < `write` < `root`, which is `ADMIN_TOKEN` alone): 401 `admin_token_invalid` without a token, with an unknown, expired or revoked one; 403 `admin_scope_insufficient` with too narrow a scope; 403 `admin_api_disabled` while the service has no `ADMIN_TOKEN` set. The token and its scope are checked before anything else of the request.";

/** What every admin list's description ends with: its NDJSON export. */
export const EXPORT_SENTENCE = prose`With \`Accept: ${NDJSON}\` the answer is every matching item instead of one page: one JSON object per line
  (each as \`items\` holds it), streamed page by page with bounded memory however many there are, from
  \`cursor\` if given (\`limit\` is ignored); a failure midway ends the stream early, without a final newline.`;

/** The 200 of an admin list: one page as JSON, or every item as NDJSON (`EXPORT_SENTENCE`). */
export function listResponse<P extends z.ZodType, I extends z.ZodType>(description: string, page: P, item: I) {
  return {
    200: {
      description,
      content: {
        'application/json': { schema: successEnvelope(page) },
        [NDJSON]: { schema: item },
      },
    },
  };
}

/** The JSON answer of an admin list, as its route's typed handler expects it. */
type PageAnswer<R> = TypedResponse<
  { data: { items: R[]; next_cursor: string | null }; meta: { message: string } },
  200,
  'json'
>;

/**
 * The answer of an admin list: the page `fetch` reads at the query's cursor (from `reader`: each page where
 * `c.get('read')` sends it, an export page the replica cancels read again on the primary), as JSON with `noun` counted in
 * `meta.message`; or, when the request asks for NDJSON, every item from that cursor on (a streamed
 * Response, which the route's typed handler cannot describe: its document says it, `listResponse`).
 */
export async function listAnswer<T, R>(
  c: Context<AppEnv>,
  query: { cursor?: string | undefined; limit: number },
  fetch: (reader: Database, cursor: string | undefined, limit: number) => Promise<Page<T>>,
  record: (item: T) => R,
  noun: string,
): Promise<PageAnswer<R>> {
  const pageAt = (cursor: string | undefined, limit: number) => c.get('read')((reader) => fetch(reader, cursor, limit));
  if (wantsNdjson(c)) return (await ndjsonExport(c, query.cursor, pageAt, record)) as unknown as PageAnswer<R>;
  const page = await pageAt(query.cursor, query.limit);
  return c.json(
    {
      data: { items: page.items.map(record), next_cursor: page.nextCursor },
      meta: { message: `${page.items.length} ${noun}.` },
    },
    200,
  ) as unknown as PageAnswer<R>;
}
