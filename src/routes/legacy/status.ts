import { createRoute } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { toIsoOffset } from '../../clock.js';
import type { Router } from '../../http/router.js';
import { API_VERSION } from '../../openapi-document.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import { StatusSchema } from '../../schemas/server.js';
import type { AppDeps } from '../../deps.js';
import { agentAuth } from './agent-auth.js';
import { prose } from '../../openapi-prose.js';

const status = createRoute({
  method: 'get',
  path: '/status',
  operationId: 'getStatus',
  tags: ['legacy'],
  summary: "Service status, or a server's status",
  description: prose`Without credentials: the service's status (\`ServiceStatus\`): its name, API version, current time, and
    \`database: "reachable"\` after a real round trip to the database (503 \`service_unavailable\` when it
    cannot be reached).

With \`Authorization: Bearer <agent_token>\`: that agent's server (\`ServerRecord\`): its id, \`status\`
    (\`active\` or \`revoked\`), hostname, registration time and last accepted check-in. A wrong token is 401
    \`agent_token_invalid\`, never the public answer. Like every route, a request carrying a body over 64 KiB
    is 413 \`payload_too_large\`, before the token is looked at. Not rate-limited.`,
  // Either no credentials or an agent token.
  security: [{}, { agentToken: [] }],
  responses: {
    200: {
      description: 'The service status (no credentials) or the server record (agent token).',
      content: {
        'application/json': {
          schema: successEnvelope(StatusSchema),
          // Each shape carries its own example in its schema (ServiceStatus, ServerRecord); this is the public one.
          example: {
            data: {
              service: 'slowdns-activation',
              version: API_VERSION,
              time: '2026-11-22T10:00:00+00:00',
              database: 'reachable',
            },
            meta: { message: 'The service is running.' },
          },
        },
      },
    },
    ...errorResponses('agent_token_invalid', 'payload_too_large'),
  },
});

export function registerStatus(app: Router, deps: AppDeps): void {
  app.openapi({ ...status, middleware: [agentAuth(deps.db, { optional: true })] as const }, async (c) => {
    const server = c.get('server');
    if (server) {
      return c.json(
        {
          data: {
            server_id: server.id,
            status: server.status,
            hostname: server.hostname,
            registered_at: toIsoOffset(server.registeredAt),
            last_seen_at: server.lastSeenAt ? toIsoOffset(server.lastSeenAt) : null,
          },
          meta: { message: `This server is ${server.status}.` },
        },
        200,
      );
    }
    await deps.db.execute(sql`select 1`);
    return c.json(
      {
        data: {
          service: 'slowdns-activation' as const,
          version: API_VERSION,
          time: toIsoOffset(deps.clock.now()),
          database: 'reachable' as const,
        },
        meta: { message: 'The service is running.' },
      },
      200,
    );
  });
}
