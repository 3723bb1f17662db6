import type { MiddlewareHandler } from 'hono';
import type { ErrorCode } from '../../errors.js';
import { requireScope, type AdminScope } from '../../http/admin-auth.js';
import type { AppEnv } from '../../http/router.js';
import { errorResponses } from '../../schemas/envelope.js';

/**
 * What every admin operation shares, spread into its `createRoute`: its tag, and the one declaration of
 * the scope it needs, which is both documented (the scope of its `adminToken` security requirement) and
 * enforced (the route's first middleware). `middleware` are the route's own, run after the scope check.
 */
export function adminOperation(scope: AdminScope, ...middleware: MiddlewareHandler<AppEnv>[]) {
  return { tags: ['admin'], security: [{ adminToken: [scope] }], middleware: [requireScope(scope), ...middleware] };
}

/** The error responses of an admin route: its own codes plus the token's, its scope's and the bad input's. */
export function adminErrorResponses(...codes: ErrorCode[]) {
  return errorResponses('validation_failed', 'admin_token_invalid', 'admin_scope_insufficient', 'admin_api_disabled', ...codes);
}

export const ADMIN_AUTH_SENTENCE =
  'Requires `Authorization: Bearer <token>`, `ADMIN_TOKEN` or a named operator token whose scope includes the one this operation\'s security requirement names (`read` < `write` < `root`, which is `ADMIN_TOKEN` alone): 401 `admin_token_invalid` without a token, with an unknown, expired or revoked one; 403 `admin_scope_insufficient` with too narrow a scope; 403 `admin_api_disabled` while the service has no `ADMIN_TOKEN` set. The token and its scope are checked before anything else of the request.';
