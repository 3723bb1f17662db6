import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset } from '../../clock.js';
import { findServerByAgentToken, revokeServer } from '../../domain/servers/registration.js';
import { ApiError } from '../../errors.js';
import { changeContext } from '../../http/change-context.js';
import type { Router } from '../../http/router.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import { RevokeRequestSchema, RevokeResultSchema } from '../../schemas/server.js';
import type { AppDeps } from '../../deps.js';
import { emptyJsonBodyAsObject } from '../../http/body-guards.js';
import { legacyBodyLimit } from './body-limit.js';
import { bearerRejected, bearerToken, isAdminToken } from '../../http/credentials.js';
import { prose } from '../../openapi-prose.js';

const revoke = createRoute({
  method: 'post',
  path: '/revoke',
  operationId: 'revokeServer',
  tags: ['legacy'],
  summary: 'Revoke a server',
  description: prose`Marks a server \`revoked\`; its next check-in answers \`status: "revoked"\` and its reports are no longer
    recorded. Idempotent: revoking a revoked server answers 200 with the same result (the first
    \`revoked_at\`).

- **The agent itself**: \`Authorization: Bearer <agent_token>\`, with no body (no \`Content-Type\`) or
    \`{}\`. A \`server_id\` may be given but must be the agent's own server.
- **An operator**: \`Authorization: Bearer <ADMIN_TOKEN>\` and \`{"server_id": "srv_…"}\` for any server;
    an unknown id is 404 \`server_not_found\`. The token is compared in constant time. When \`ADMIN_TOKEN\` is
    not set, operator revoke is disabled.

A missing or wrong token is 401 with \`WWW-Authenticate: Bearer\`: \`admin_token_invalid\` when the
    request names a \`server_id\` that the token does not own (an operator request), \`agent_token_invalid\`
    otherwise. The body is validated before the credentials (400 first), since its \`server_id\` decides which
    token is asked for. Bodies are limited to 8 KiB. Not rate-limited.`,
  // Typed wide on purpose: a literal array of two different objects breaks the body's type inference.
  security: [{ agentToken: [] }, { adminToken: [] }] as Record<string, string[]>[],
  middleware: [legacyBodyLimit, emptyJsonBodyAsObject],
  // Optional: an agent may send no body at all.
  request: { body: { required: false, content: { 'application/json': { schema: RevokeRequestSchema } } } },
  responses: {
    200: {
      description: 'The server is revoked.',
      content: {
        'application/json': {
          schema: successEnvelope(RevokeResultSchema),
          example: {
            data: { server_id: 'srv_9c1e0f4a7b2d3e58', status: 'revoked', revoked_at: '2026-11-22T10:30:00+00:00' },
            meta: { message: 'Server revoked.' },
          },
        },
      },
    },
    ...errorResponses(
      'validation_failed',
      'agent_token_invalid',
      'admin_token_invalid',
      'server_not_found',
      'unsupported_media_type',
      'payload_too_large',
    ),
  },
});

export function registerRevoke(app: Router, deps: AppDeps): void {
  app.openapi(revoke, async (c) => {
    const { server_id: named } = c.req.valid('json');
    const token = bearerToken(c);
    const tokenGiven = c.req.header('authorization') !== undefined;
    let serverId: string;
    let actor: 'operator' | 'agent' = 'agent';
    if (isAdminToken(token, deps.config.adminToken)) {
      if (!named)
        throw new ApiError(
          'validation_failed',
          'The request is not valid. server_id: is required with the operator token.',
        );
      serverId = named;
      actor = 'operator';
    } else {
      const own = token ? await findServerByAgentToken(deps.db, token) : undefined;
      if (own && (!named || named === own.id)) serverId = own.id;
      // Naming another server is an operator request, whatever token came with it.
      else if (named) throw bearerRejected('admin_token_invalid', tokenGiven);
      else throw bearerRejected('agent_token_invalid', tokenGiven);
    }
    const { server } = await revokeServer(deps.db, serverId, deps.clock.now(), changeContext(c, actor));
    return c.json(
      {
        data: { server_id: server.id, status: 'revoked' as const, revoked_at: toIsoOffset(server.revokedAt!) },
        meta: { message: 'Server revoked.' },
      },
      200,
    );
  });
}
