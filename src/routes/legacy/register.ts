import { createRoute } from '@hono/zod-openapi';
import { CHECKIN_INTERVAL_SECONDS, registerServer } from '../../domain/servers/registration.js';
import { verifyInstallTokenFor } from '../../domain/tokens/install-step-tokens.js';
import { checksFor } from '../../domain/rate-limits/limiter.js';
import { checkSources, enforceRateLimits } from '../../http/enforce-rate-limits.js';
import { jsonBody } from '../../http/json-body.js';
import { rateLimitDescription, rateLimitedResponse, rateLimitHeaderDocs } from '../../http/rate-limit-headers.js';
import { changeContext } from '../../http/change-context.js';
import type { Router } from '../../http/router.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import { headerRef } from '../../schemas/response-headers.js';
import { RegisteredServerSchema, RegisterRequestSchema } from '../../schemas/server.js';
import type { RouteDeps } from '../../deps.js';
import { legacyBodyLimit } from './body-limit.js';
import { prose } from '../../openapi-prose.js';

const register = createRoute({
  method: 'post',
  path: '/register',
  operationId: 'registerServer',
  tags: ['legacy'],
  summary: 'Register a server',
  description: prose`Called by the installer after activate and **before** confirm, with the activation's install token, which
    must be unused and unexpired. Register does not consume the token: confirm still does. Records the server
    with the hostname, public IP, machine id and SSH fingerprint of the activation, and answers its
    \`server_id\` and a secret \`agent_token\` for \`/checkin\`, \`/revoke\` and \`/status\`. The agent token
    is shown only in this answer: the service keeps its SHA-256, so store it right away.

One server per activation. A register repeated with the same activation id and install token while the
    server has not checked in yet (an answer lost to a database failover or the network) answers 201 with the
    same \`server_id\` and a **new** \`agent_token\`: the one the lost answer carried stops working (event
    \`server.agent_token_reissued\`). After the server's first check-in, a second register is 409
    \`server_already_registered\`. A released activation is 409 \`activation_released\`; after confirm the
    token is used, 409 \`install_token_used\`; a tampered, expired or foreign install token is 401
    \`install_token_invalid\`. Bodies are limited to 8 KiB.

Order of checks: the body (400 \`validation_failed\`), then the limits, then the token and the activation:
    a register with a bad token still counts.

${rateLimitDescription('register')}`,
  security: [],
  middleware: [legacyBodyLimit],
  request: jsonBody(RegisterRequestSchema),
  responses: {
    201: {
      description: 'The server is registered.',
      headers: {
        ...rateLimitHeaderDocs('register'),
        'Cache-Control': headerRef('Cache-Control', 'Always `no-store`: the agent token is shown once.'),
      },
      content: {
        'application/json': {
          schema: successEnvelope(RegisteredServerSchema),
          example: {
            data: {
              server_id: 'srv_9c1e0f4a7b2d3e58',
              agent_token: 'q0Hc8Qp3y9oZ1xVb2L7nTgW4eK6mJ5rA8sD3fU0iN1c',
              checkin_interval_seconds: CHECKIN_INTERVAL_SECONDS,
            },
            meta: { message: 'Server registered. Keep the agent token: it is not shown again.' },
          },
        },
      },
    },
    ...errorResponses(
      'validation_failed',
      'install_token_invalid',
      'activation_not_found',
      'server_already_registered',
      'activation_released',
      'install_token_used',
      'unsupported_media_type',
      'payload_too_large',
    ),
    429: rateLimitedResponse('register'),
  },
});

export function registerRegister(app: Router, deps: RouteDeps): void {
  app.openapi(register, async (c) => {
    const body = c.req.valid('json');
    const now = deps.clock.now();
    await enforceRateLimits(
      c,
      deps.db,
      now,
      checksFor('register', { ip: c.get('clientKey') }, await checkSources(deps, now)),
    );
    const jti = await verifyInstallTokenFor(deps.keys, {
      token: body.install_token,
      activationId: body.activation_id,
      now,
    });
    const { server, agentToken } = await registerServer(
      deps.db,
      { activationId: body.activation_id, installTokenJti: jti, agentVersion: body.agent_version },
      now,
      changeContext(c, 'installer'),
    );
    c.header('Cache-Control', 'no-store');
    return c.json(
      {
        data: { server_id: server.id, agent_token: agentToken, checkin_interval_seconds: CHECKIN_INTERVAL_SECONDS },
        meta: { message: 'Server registered. Keep the agent token: it is not shown again.' },
      },
      201,
    );
  });
}
