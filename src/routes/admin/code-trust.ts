import { createRoute } from '@hono/zod-openapi';
import type { RouteDeps } from '../../deps.js';
import { inspectIdentityToken } from '../../domain/identity/identity-token.js';
import { readTrustCode } from '../../domain/identity/identity-precheck.js';
import { jsonBody } from '../../http/json-body.js';
import type { Router } from '../../http/router.js';
import { prose } from '../../openapi-prose.js';
import { InstallCodeIdParamsSchema } from '../../schemas/admin/install-codes.js';
import { TrustExplainRequestSchema, TrustExplanationSchema } from '../../schemas/admin/trust-explain.js';
import { successEnvelope } from '../../schemas/envelope.js';
import { ADMIN_AUTH_SENTENCE, adminErrorResponses, adminOperation } from './admin-route.js';

const explain = createRoute({
  method: 'post',
  path: '/api/v2/admin/install-codes/{install_code_id}/trust/explain',
  operationId: 'explainTrust',
  ...adminOperation('write'),
  summary: "Explain a token against a code's trust",
  description: prose`Runs the checks an identity precheck makes on \`identity_token\` against this code's \`trust\` (DESIGN §25) and
    answers each, passed or failed: the token's form, algorithm, \`kid\`, issuer and key, its signature, audience and
    times, its lifetime, then every rule. A machine refused with 403 \`identity_not_allowed\` learns nothing of the rule it
    broke; its operator learns it here (and in the event \`install_code.identity_refused\`). Nothing of the token is kept,
    no event is written and nothing is counted. A code without \`trust\` is 403 \`identity_not_allowed\`; an unknown id 404
    \`install_code_not_found\`. Write scope: the answer describes what the code admits. ${ADMIN_AUTH_SENTENCE}`,
  request: { params: InstallCodeIdParamsSchema, ...jsonBody(TrustExplainRequestSchema) },
  responses: {
    200: {
      description: 'Each check and its outcome.',
      content: { 'application/json': { schema: successEnvelope(TrustExplanationSchema) } },
    },
    ...adminErrorResponses(
      'install_code_not_found',
      'identity_not_allowed',
      'unsupported_media_type',
      'payload_too_large',
    ),
  },
});

export function registerAdminCodeTrust(app: Router, deps: RouteDeps): void {
  app.openapi(explain, async (c) => {
    const { install_code_id: id } = c.req.valid('param');
    const { identity_token: token } = c.req.valid('json');
    const code = await readTrustCode(c.get('db'), id);
    const outcome = await inspectIdentityToken(code.trust, token, {
      issuers: deps.identityIssuers,
      now: deps.clock.now(),
    });
    const refused = 'refusal' in outcome ? outcome.refusal.code : undefined;
    const identity = 'verified' in outcome ? outcome.verified : 'identity' in outcome ? outcome.identity : undefined;
    return c.json(
      {
        data: {
          install_code_id: code.id,
          verdict: (refused ?? 'allowed') as
            | 'allowed'
            | 'identity_token_invalid'
            | 'identity_not_allowed'
            | 'identity_issuer_unavailable',
          identity: identity ? { iss: identity.iss, sub: identity.sub } : null,
          checks: outcome.checks,
        },
        meta: {
          message: refused
            ? `A precheck with this token would be refused: ${refused}.`
            : 'A precheck with this token would be allowed.',
        },
      },
      200,
    );
  });
}
