import { z } from '@hono/zod-openapi';
import { InstallCodeIdSchema } from '../install-code.js';

export const TrustExplainRequestSchema = z
  .object({
    identity_token: z.string().min(1, 'is required').max(16_384, 'is too long to be an identity token').openapi({
      description: 'The token to explain, as a machine would send it. Nothing of it is kept.',
      example: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJpc3MiOiJodHRwczovL3Rva2VuLmV4YW1wbGUifQ.c2ln',
    }),
  })
  .strict()
  .openapi('TrustExplainRequest');

const IdentityCheckSchema = z
  .object({
    check: z.string().max(100).openapi({
      description:
        'The check: `format`, `algorithm`, `kid`, `issuer`, `key`, `signature`, `audience`, `expiry`, `not_before`, `issued_at`, `subject`, `lifetime`, then each rule (`subject_pattern`, `claims.<name>`, `tags_from_claims.<tag>`).',
      example: 'claims.repository_owner_id',
    }),
    passed: z.boolean().openapi({ example: false }),
    detail: z
      .string()
      .max(200)
      .optional()
      .openapi({ description: 'Why it failed, in a few words.', example: 'no match' }),
  })
  .openapi('TrustCheck');

export const TrustExplanationSchema = z
  .object({
    install_code_id: InstallCodeIdSchema,
    verdict: z
      .enum(['allowed', 'identity_token_invalid', 'identity_not_allowed', 'identity_issuer_unavailable'])
      .openapi({
        description:
          'What a precheck with this token would meet: `allowed`, or the refusal it would get (its replay and the other rules of the code aside).',
        example: 'identity_not_allowed',
      }),
    identity: z
      .object({
        iss: z.string().max(2048).openapi({ example: 'https://token.actions.githubusercontent.com' }),
        sub: z.string().max(1024).openapi({ example: 'repo:example-org/dns:ref:refs/heads/main' }),
      })
      .nullable()
      .openapi({
        description: 'Whom a verified token names; `null` when it did not verify.',
        example: {
          iss: 'https://token.actions.githubusercontent.com',
          sub: 'repo:example-org/dns:ref:refs/heads/main',
        },
      }),
    checks: z.array(IdentityCheckSchema).max(64).openapi({
      description:
        'Every check made, in order; the first that makes the token invalid ends them, every rule is checked.',
    }),
  })
  .openapi('TrustExplanation');
