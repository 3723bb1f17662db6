import { createRoute } from '@hono/zod-openapi';
import { releaseActivation } from '../../domain/activations/release.js';
import { jsonBody } from '../../http/json-body.js';
import { changeContext } from '../../http/change-context.js';
import type { Router } from '../../http/router.js';
import { ReleaseRequestSchema, ReleaseResultSchema } from '../../schemas/activation.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import type { RouteDeps } from '../../deps.js';
import type { ReleaseProof } from '../../domain/activations/release-proof.js';
import { verifyInstallTokenFor } from '../../domain/tokens/install-step-tokens.js';
import { prose } from '../../openapi-prose.js';

const release = createRoute({
  method: 'post',
  path: '/api/v2/slowdns/install/release',
  operationId: 'releaseInstall',
  tags: ['install'],
  // No credential header: the install code, the signed tokens and the activation id travel in the body.
  security: [],
  summary: 'Release an activation (rollback)',
  description: prose`Called by the installer's exit handler when the install fails before confirm. The activation becomes
    \`released\`. The install code is restored to \`issued\` (with its original expiry) only if the install
    token is unused and unexpired and the code itself has not expired; \`install_code_restored\` says whether
    it was. A server registered for the activation (\`POST /register\`) is revoked in the same transaction:
    its agent token stops working and its next check-in answers \`status: "revoked"\`. Idempotent: releasing a
    released activation answers 200 with the same result. Releasing a confirmed activation is 409
    \`activation_confirmed\`. Not rate-limited.

    Only the installer may release (the activation id is no secret: operators' lists and webhooks carry it).
    Its proof, checked before the activation's state (a repeat needs it too): the \`install_token\` activate
    returned (its signature, kind and activation are verified, its expiry is not; a token of another
    activation is 401 \`install_token_invalid\`), or, without a token, the request's address: the address
    activate or precheck came from (the same IPv4 address, or the same IPv6 /64, as \`TRUST_PROXY\` resolves
    it). Otherwise 403 \`release_not_allowed\`; always so without a token when \`RELEASE_REQUIRES_TOKEN=true\`.
    The event \`activation.released\` says which proof in \`data.release_proof\` (\`install_token\` or
    \`address\`).`,
  request: jsonBody(ReleaseRequestSchema),
  responses: {
    200: {
      description: 'The activation is released.',
      content: {
        'application/json': {
          schema: successEnvelope(ReleaseResultSchema),
          example: {
            data: { activation_id: 'act_3f9a12b45cd67e89', status: 'released', install_code_restored: true },
            meta: { message: 'Activation released; the install code can be used again.' },
          },
        },
      },
    },
    ...errorResponses(
      'validation_failed',
      'install_token_invalid',
      'release_not_allowed',
      'activation_not_found',
      'activation_confirmed',
      'unsupported_media_type',
      'payload_too_large',
    ),
  },
});

export function registerRelease(app: Router, deps: RouteDeps): void {
  app.openapi(release, async (c) => {
    const { activation_id, install_token } = c.req.valid('json');
    const proof: ReleaseProof =
      install_token === undefined
        ? {
            kind: 'address',
            clientKeyHash: c.get('keyedHashes').clientKey(c.get('clientKey')),
            tokenRequired: deps.config.releaseRequiresToken,
          }
        : {
            kind: 'install_token',
            jti: await verifyInstallTokenFor(deps.keys, {
              token: install_token,
              activationId: activation_id,
              now: deps.clock.now(),
              expired: 'ignore',
            }),
          };
    const { activationId, codeRestored } = await releaseActivation(deps.db, {
      activationId: activation_id,
      now: deps.clock.now(),
      context: changeContext(c, 'installer'),
      proof,
    });
    return c.json(
      {
        data: { activation_id: activationId, status: 'released' as const, install_code_restored: codeRestored },
        meta: {
          message: codeRestored
            ? 'Activation released; the install code can be used again.'
            : 'Activation released; the install code could not be restored, request a new one.',
        },
      },
      200,
    );
  });
}
