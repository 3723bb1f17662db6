import { createRoute } from '@hono/zod-openapi';
import { createMiddleware } from 'hono/factory';
import { CHECKIN_INTERVAL_SECONDS, checkInServer } from '../../domain/servers.js';
import { checksFor } from '../../domain/rate-limits/limiter.js';
import { checkSources, enforceRateLimits } from '../../http/enforce-rate-limits.js';
import { jsonBody } from '../../http/json-body.js';
import { rateLimitDescription, rateLimitedResponse, rateLimitHeaderDocs } from '../../http/rate-limit-headers.js';
import type { Router } from '../../http/router.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import { CheckinRequestSchema, CheckinResultSchema } from '../../schemas/server.js';
import type { RouteDeps } from '../../deps.js';
import { legacyBodyLimit } from './body-limit.js';
import { agentAuth, type AgentEnv } from './agent-auth.js';
import { bearerRejected } from '../../http/credentials.js';
import { prose } from '../../openapi-prose.js';

const checkin = createRoute({
  method: 'post',
  path: '/checkin',
  operationId: 'checkInServer',
  tags: ['legacy'],
  summary: 'Check in a server',
  description: prose`Called by the server agent every \`checkin_interval_seconds\` with its agent token. Records when the
    server was last seen and what it reported (agent version, uptime, the state of at most 32 services), and
    answers its \`status\` and the interval until the next check-in.

A revoked server's check-in answers 200 with \`status: "revoked"\` and records nothing: the agent should
    stop. A missing or unknown agent token is 401 \`agent_token_invalid\` with \`WWW-Authenticate: Bearer\`.
    Bodies are limited to 8 KiB (413 \`payload_too_large\`); fields this version does not know are ignored and
    not stored, so newer agents keep working.

Order of checks: first the size limit every route has (413 over 64 KiB), then the agent token (401), then
    the limit, then the body (413 over 8 KiB, 415 \`unsupported_media_type\` when it is not JSON, 400
    \`validation_failed\`): a check-in with a bad body still counts, one without a valid token does not (there
    is no server to count it for).

${rateLimitDescription('checkin')}`,
  security: [{ agentToken: [] }],
  request: jsonBody(CheckinRequestSchema),
  responses: {
    200: {
      description: "The server's status and the next interval.",
      headers: rateLimitHeaderDocs('checkin'),
      content: {
        'application/json': {
          schema: successEnvelope(CheckinResultSchema),
          example: {
            data: { status: 'active', checkin_interval_seconds: CHECKIN_INTERVAL_SECONDS },
            meta: { message: 'Check-in recorded.' },
          },
        },
      },
    },
    ...errorResponses('validation_failed', 'agent_token_invalid', 'unsupported_media_type', 'payload_too_large'),
    429: rateLimitedResponse('checkin'),
  },
});

/** Counts the check-in for the server the agent token belongs to (set by agentAuth). */
function countCheckin(deps: RouteDeps) {
  return createMiddleware<AgentEnv>(async (c, next) => {
    const now = deps.clock.now();
    await enforceRateLimits(
      c,
      deps.db,
      now,
      checksFor('checkin', { server: c.get('server')!.id }, await checkSources(deps, now)),
    );
    await next();
  });
}

export function registerCheckin(app: Router, deps: RouteDeps): void {
  // The token is checked before the 8 KiB limit and the body's validation: without one, a caller gets 401, not what is wrong with its body.
  app.openapi(
    { ...checkin, middleware: [agentAuth(deps.db), countCheckin(deps), legacyBodyLimit] as const },
    async (c) => {
      const server = await checkInServer(deps.db, {
        serverId: c.get('server')!.id,
        report: c.req.valid('json'),
        now: deps.clock.now(),
        address: c.get('observedIp'),
      });
      if (!server) throw bearerRejected('agent_token_invalid', true);
      return c.json(
        {
          data: { status: server.status, checkin_interval_seconds: CHECKIN_INTERVAL_SECONDS },
          meta: {
            message: server.status === 'active' ? 'Check-in recorded.' : 'This server is revoked: stop the agent.',
          },
        },
        200,
      );
    },
  );
}
