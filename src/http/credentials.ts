import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { ApiError, type ErrorCode } from '../errors.js';
import type { Router } from './router.js';

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or undefined. */
export function bearerToken(c: Context): string | undefined {
  const match = /^Bearer +([\x21-\x7e]{1,512}) *$/i.exec(c.req.header('authorization') ?? '');
  return match?.[1];
}

/** 401 with the `WWW-Authenticate: Bearer` challenge RFC 6750 asks for. */
export function bearerRejected(
  code: Extract<ErrorCode, 'agent_token_invalid' | 'admin_token_invalid'>,
  tokenGiven: boolean,
): ApiError {
  const realm = code === 'agent_token_invalid' ? 'slowdns-agent' : 'slowdns-operator';
  return new ApiError(code, undefined, {
    'WWW-Authenticate': `Bearer realm="${realm}"${tokenGiven ? ', error="invalid_token"' : ''}`,
  });
}

/** Constant-time: both sides are hashed first so that neither their contents nor their lengths leak. */
export function isAdminToken(presented: string | undefined, adminToken: string | undefined): boolean {
  if (!presented || !adminToken) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(adminToken));
}

/** The two bearer schemes of the document: the agent token (legacy routes) and the operator token (admin routes, operator revoke). */
export function registerBearerSchemes(app: Router): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'agentToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The `agent_token` that `POST /register` returned, once, for this server.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'adminToken', {
    type: 'http',
    scheme: 'bearer',
    description:
      'The operator secret `ADMIN_TOKEN` (32 to 512 characters, compared in constant time; it acts as the operator `root` with every scope), or a named operator token (`sdo_…`, made by `createOperatorToken`) with the scope `read` or `write`. Each admin operation names the scope it needs in its security requirement (`read` < `write` < `root`). When `ADMIN_TOKEN` is not set, the admin routes answer 403 `admin_api_disabled`, named tokens included.',
  });
}
