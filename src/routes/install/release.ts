import { createRoute } from '@hono/zod-openapi';
import { releaseActivationCounted } from '../../http/operator-changes.js';
import { jsonBody } from '../../http/json-body.js';
import { changeContext } from '../../http/change-context.js';
import type { Router } from '../../http/router.js';
import { ReleaseRequestSchema, ReleaseResultSchema } from '../../schemas/activation.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import type { AppDeps } from '../../deps.js';
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
    \`activation_confirmed\`. Not rate-limited.`,
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
      'activation_not_found',
      'activation_confirmed',
      'unsupported_media_type',
      'payload_too_large',
    ),
  },
});

export function registerRelease(app: Router, deps: AppDeps): void {
  app.openapi(release, async (c) => {
    const { activation_id } = c.req.valid('json');
    const { activationId, codeRestored } = await releaseActivationCounted(
      c,
      deps,
      activation_id,
      changeContext(c, 'installer'),
    );
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
