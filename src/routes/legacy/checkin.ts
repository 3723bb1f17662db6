import { createRoute } from '@hono/zod-openapi';
import { CHECKIN_INTERVAL_SECONDS, checkInServer } from '../../domain/servers.js';
import { jsonBody } from '../../http/json-body.js';
import type { Router } from '../../http/router.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import { CheckinRequestSchema, CheckinResultSchema } from '../../schemas/server.js';
import type { AppDeps } from '../../app.js';
import { legacyBodyLimit } from './body-limit.js';
import { agentAuth } from './agent-auth.js';
import { bearerRejected } from './credentials.js';

const checkin = createRoute({
  method: 'post',
  path: '/checkin',
  operationId: 'checkInServer',
  tags: ['legacy'],
  summary: 'Check in a server',
  description: `Called by the server agent every \`checkin_interval_seconds\` with its agent token. Records when the server was last seen and what it reported (agent version, uptime, the state of at most 32 services), and answers its \`status\` and the interval until the next check-in.

A revoked server's check-in answers 200 with \`status: "revoked"\` and records nothing: the agent should stop. A missing or unknown agent token is 401 \`agent_token_invalid\` with \`WWW-Authenticate: Bearer\`. Bodies are limited to 8 KiB (413 \`payload_too_large\`); fields this version does not know are ignored and not stored, so newer agents keep working.`,
  security: [{ agentToken: [] }],
  request: jsonBody(CheckinRequestSchema),
  responses: {
    200: {
      description: 'The server\'s status and the next interval.',
      content: {
        'application/json': {
          schema: successEnvelope(CheckinResultSchema),
          example: { data: { status: 'active', checkin_interval_seconds: CHECKIN_INTERVAL_SECONDS }, meta: { message: 'Check-in recorded.' } },
        },
      },
    },
    ...errorResponses('validation_failed', 'agent_token_invalid', 'rate_limit_exceeded', 'unsupported_media_type', 'payload_too_large'),
  },
});

export function registerCheckin(app: Router, deps: AppDeps): void {
  // The token is checked before the body is validated: without one, a caller learns only 401.
  app.openapi({ ...checkin, middleware: [agentAuth(deps.db), legacyBodyLimit] as const }, async (c) => {
    const server = await checkInServer(deps.db, c.var.server!.id, c.req.valid('json'), deps.clock.now());
    if (!server) throw bearerRejected('agent_token_invalid', true);
    return c.json(
      {
        data: { status: server.status, checkin_interval_seconds: CHECKIN_INTERVAL_SECONDS },
        meta: { message: server.status === 'active' ? 'Check-in recorded.' : 'This server is revoked: stop the agent.' },
      },
      200,
    );
  });
}
