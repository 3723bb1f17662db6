import { createMiddleware } from 'hono/factory';
import type { Database } from '../../db/database.js';
import type { AppEnv } from '../../http/app-env.js';
import { findServerByAgentToken, type ServerRow } from '../../domain/servers/registration.js';
import { bearerRejected, bearerToken } from '../../http/credentials.js';

/** The app's variables plus the agent's server; optional so that this env and the app's stay interchangeable. */
export interface AgentEnv {
  Variables: AppEnv['Variables'] & { server?: ServerRow | undefined };
}

/**
 * Resolves the agent's server from its bearer token before the body is validated, so that a caller
 * without a valid token learns nothing about its body (only the app-wide 64 KiB limit runs first).
 * Revoked servers authenticate too: they must learn it.
 * With `optional`, a request without an Authorization header passes with no server.
 */
export function agentAuth(db: Database, { optional = false } = {}) {
  return createMiddleware<AgentEnv>(async (c, next) => {
    const token = bearerToken(c);
    if (!token) {
      if (optional && c.req.header('authorization') === undefined) {
        c.set('server', undefined);
        return next();
      }
      throw bearerRejected('agent_token_invalid', c.req.header('authorization') !== undefined);
    }
    const server = await findServerByAgentToken(db, token);
    if (!server) throw bearerRejected('agent_token_invalid', true);
    c.set('server', server);
    await next();
  });
}
