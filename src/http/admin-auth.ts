import type { MiddlewareHandler } from 'hono';
import type { RouteDeps } from '../deps.js';
import { operatorOfToken } from '../domain/operators/operator-tokens.js';
import { ApiError } from '../errors.js';
import { bearerRejected, bearerToken, isAdminToken } from './credentials.js';
import type { AppEnv } from './app-env.js';

/** The operator that ADMIN_TOKEN acts as, in events and in what operators set (`created_by`). */
export const ROOT_OPERATOR = 'root';

/**
 * What an admin route needs: `read` (lists and objects), `write` (operator actions), `root` (managing
 * operator tokens: ADMIN_TOKEN only). A scope includes those before it.
 */
const ADMIN_SCOPES = ['read', 'write', 'root'] as const;
export type AdminScope = (typeof ADMIN_SCOPES)[number];

/**
 * Guards every admin route, before its input is validated: 403 `admin_api_disabled` while no
 * ADMIN_TOKEN is set, 401 `admin_token_invalid` without a token, or with one that is neither ADMIN_TOKEN
 * (compared in constant time) nor an active named operator token. Sets who acts and with what scope;
 * each route's own `requireScope` (declared in its definition) then says whether that is enough.
 */
export function adminAuth(deps: Pick<RouteDeps, 'config' | 'db' | 'clock'>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const adminToken = deps.config.adminToken;
    if (!adminToken) throw new ApiError('admin_api_disabled');
    const presented = bearerToken(c);
    if (isAdminToken(presented, adminToken)) {
      c.set('operator', ROOT_OPERATOR);
      c.set('operatorScope', 'root');
    } else {
      const token = presented === undefined ? undefined : await operatorOfToken(deps.db, presented, deps.clock.now());
      if (!token) throw bearerRejected('admin_token_invalid', c.req.header('authorization') !== undefined);
      c.set('operator', token.name);
      c.set('operatorScope', token.scope);
    }
    await next();
  };
}

/** 403 `admin_scope_insufficient` unless the operator's scope includes `needed`. */
export function requireScope(needed: AdminScope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (ADMIN_SCOPES.indexOf(c.get('operatorScope')) < ADMIN_SCOPES.indexOf(needed))
      throw new ApiError(
        'admin_scope_insufficient',
        `This operator token's scope is \`${c.get('operatorScope')}\`; this action needs \`${needed}\`.`,
      );
    await next();
  };
}
