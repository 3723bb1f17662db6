import { createRoute } from '@hono/zod-openapi';
import { confirmActivation } from '../../domain/activations.js';
import { verifyInstallTokenFor } from '../../domain/tokens.js';
import { jsonBody } from '../../http/json-body.js';
import { changeContext } from '../../http/change-context.js';
import type { Router } from '../../http/router.js';
import { ConfirmRequestSchema, ConfirmResultSchema } from '../../schemas/activation.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import type { AppDeps } from '../../deps.js';

const confirm = createRoute({
  method: 'post',
  path: '/api/v2/slowdns/install/confirm',
  operationId: 'confirmInstall',
  tags: ['install'],
  // No credential header: the install code, the signed tokens and the activation id travel in the body.
  security: [],
  summary: 'Confirm the install',
  description: `Called by the installer once every service on the machine is active. Consumes the install token for good in the same statement that confirms the activation, and the install code becomes \`consumed\`. A token can be used once, across all instances: a second confirm gets 409 \`install_token_used\`. Not rate-limited: the activation id and the signed token are the cap.`,
  request: jsonBody(ConfirmRequestSchema),
  responses: {
    200: {
      description: 'The activation is confirmed.',
      content: {
        'application/json': {
          schema: successEnvelope(ConfirmResultSchema),
          example: { data: { activation_id: 'act_3f9a12b45cd67e89', status: 'confirmed' }, meta: { message: 'Install confirmed.' } },
        },
      },
    },
    ...errorResponses('validation_failed', 'install_token_invalid', 'activation_not_found', 'install_token_used', 'activation_released', 'unsupported_media_type', 'payload_too_large'),
  },
});

export function registerConfirm(app: Router, deps: AppDeps): void {
  app.openapi(confirm, async (c) => {
    const body = c.req.valid('json');
    const now = deps.clock.now();
    const jti = await verifyInstallTokenFor(deps.keys, body.install_token, body.activation_id, now);
    const activation = await confirmActivation(deps.db, body.activation_id, jti, now, changeContext(c, 'installer'));
    c.var.metrics.transition('activation.confirmed', 'installer');
    c.var.metrics.transition('install_code.consumed', 'installer');
    return c.json({ data: { activation_id: activation.id, status: 'confirmed' as const }, meta: { message: 'Install confirmed.' } }, 200);
  });
}
