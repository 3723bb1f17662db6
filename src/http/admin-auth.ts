import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import { bearerRejected, bearerToken, isAdminToken } from './credentials.js';
import type { AppEnv } from './router.js';

/** The operator that ADMIN_TOKEN acts as, in events and in what operators set (`created_by`). */
export const ROOT_OPERATOR = 'root';

/**
 * Guards every admin route, before its input is validated: 403 `admin_api_disabled` while no
 * ADMIN_TOKEN is set (there is no token to present), 401 `admin_token_invalid` without the token or
 * with another one (compared in constant time).
 */
export function adminAuth(adminToken: string | undefined): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!adminToken) throw new ApiError('admin_api_disabled');
    if (!isAdminToken(bearerToken(c), adminToken)) throw bearerRejected('admin_token_invalid', c.req.header('authorization') !== undefined);
    // The one token there is, ADMIN_TOKEN, is the operator `root` (named operator tokens will name theirs).
    c.set('operator', ROOT_OPERATOR);
    await next();
  };
}
