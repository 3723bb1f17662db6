import { createRoute } from '@hono/zod-openapi';
import { confirmActivation } from '../../domain/activations/confirm.js';
import { verifyInstallTokenFor } from '../../domain/tokens/install-step-tokens.js';
import { jsonBody } from '../../http/json-body.js';
import { changeContext } from '../../http/change-context.js';
import type { Router } from '../../http/router.js';
import { ConfirmRequestSchema, ConfirmResultSchema } from '../../schemas/activation.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import type { RouteDeps } from '../../deps.js';
import { signReceipt } from '../../domain/activations/receipts.js';
import { RECEIPT_EXAMPLE } from '../../schemas/receipt.js';
import { prose } from '../../openapi-prose.js';

const confirm = createRoute({
  method: 'post',
  path: '/api/v2/slowdns/install/confirm',
  operationId: 'confirmInstall',
  tags: ['install'],
  // No credential header: the install code, the signed tokens and the activation id travel in the body.
  security: [],
  summary: 'Confirm the install',
  description: prose`Called by the installer once every service on the machine is active. Consumes the install token for good
    in the same statement that confirms the activation, and the install code becomes \`consumed\`. A token can
    be used once, across all instances. Repeated by the token's holder (the same activation id and an install
    token that verifies, as \`install/status\` verifies it, even expired) after a confirm that succeeded (an
    answer lost to a database failover or the network), confirm answers 200 with the same \`receipt\` (the
    same claims and \`iat\`) and writes nothing: no event, no webhook. \`install_token_used\` (409) stays for
    clients written against it. Answers the activation \`receipt\`, a signed proof of the install anyone can
    verify offline against \`/.well-known/jwks.json\` (its claims and how to verify it: the \`receipt\` field
    below). Not rate-limited: the activation id and the signed token are the cap.`,
  request: jsonBody(ConfirmRequestSchema),
  responses: {
    200: {
      description: 'The activation is confirmed.',
      content: {
        'application/json': {
          schema: successEnvelope(ConfirmResultSchema),
          example: {
            data: { activation_id: 'act_3f9a12b45cd67e89', status: 'confirmed', receipt: RECEIPT_EXAMPLE },
            meta: { message: 'Install confirmed.' },
          },
        },
      },
    },
    ...errorResponses(
      'validation_failed',
      'install_token_invalid',
      'activation_not_found',
      'install_token_used',
      'activation_released',
      'unsupported_media_type',
      'payload_too_large',
    ),
  },
});

export function registerConfirm(app: Router, deps: RouteDeps): void {
  app.openapi(confirm, async (c) => {
    const body = c.req.valid('json');
    const now = deps.clock.now();
    // As install/status verifies it: an expired token may still read back (repeat) a confirm that succeeded;
    // a first confirm with it is refused by the statement itself (install_token_invalid).
    const jti = await verifyInstallTokenFor(deps.keys, {
      token: body.install_token,
      activationId: body.activation_id,
      now,
      expired: 'accept',
    });
    // The signer is kept among the receipt keys before the statement, so no receipt leaves unpublished.
    const signer = await deps.receiptKeys.signer();
    const activation = await confirmActivation(deps.db, {
      activationId: body.activation_id,
      jti,
      now,
      context: changeContext(c, 'installer'),
    });
    const receipt = await signReceipt(signer, activation);
    return c.json(
      {
        data: { activation_id: activation.id, status: 'confirmed' as const, receipt },
        meta: { message: 'Install confirmed.' },
      },
      200,
    );
  });
}
