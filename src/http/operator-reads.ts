import type { MiddlewareHandler } from 'hono';
import type { ReadRouting } from '../db/read-routing.js';
import type { AppEnv } from './app-env.js';

/** Methods that change nothing: any other answered below 400 is an operator's write. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * After the operator is known (admin-auth, the console session): `c.get('read')` for the routes' reads that
 * may go to the replica, and the operator's writes remembered, so that their reads stay on the primary
 * for 30 s after (they see what they did).
 */
export function operatorReads(reads: ReadRouting): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('read', (read) => reads.read(read, c.get('operator')));
    await next();
    const operator = c.get('operator');
    if (operator !== undefined && !READ_METHODS.has(c.req.method) && c.res.status < 400) reads.wrote(operator);
  };
}
