import { z } from '@hono/zod-openapi';
import { FLEET_CODE_MAX_TAGS, TAG_KEY_PATTERN } from '../../domain/install-codes/fleet-rules.js';
import {
  DEFAULT_MAX_LIFETIME_SECONDS,
  MAX_LIFETIME_SECONDS,
  MIN_LIFETIME_SECONDS,
  TRUST_MAX_AUDIENCES,
  TRUST_MAX_CLAIM_RULES,
  TRUST_MAX_KEYS,
} from '../../domain/identity/trust-block.js';
import { hasLiteralSegment, MAX_PATTERN_LENGTH, patternProblem } from '../../domain/identity/trust-patterns.js';
import { CONTROL_CHARACTERS_MESSAGE, WITHOUT_CONTROL_CHARACTERS } from '../control-characters.js';

/** DESIGN §25: a fleet code that trusts a platform's signed identity. */

const EXAMPLE_JWKS = {
  keys: [
    {
      kty: 'EC',
      kid: 'cluster-2026-11',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
    },
  ],
};

const CLAIM_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;
const CLAIM_NAME_MESSAGE = 'must be a top-level claim name: a letter or _, then up to 63 of A-Z a-z 0-9 _ . : -';

const PatternSchema = z
  .string()
  .max(MAX_PATTERN_LENGTH, `must be at most ${MAX_PATTERN_LENGTH} characters`)
  .regex(WITHOUT_CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE)
  .superRefine((pattern, ctx) => {
    const problem = patternProblem(pattern);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .openapi({
    description:
      'Matches the whole value, case-sensitive: `*` matches one or more characters other than `/`, `:` and `.`, at most 4 per pattern; every other character is itself.',
    example: 'repo:example-org/dns-fleet:ref:refs/heads/main',
  });

const ClaimNameSchema = z.string().max(64).regex(CLAIM_NAME_PATTERN, CLAIM_NAME_MESSAGE);

/** A public key of an inline key set: what jose imports, checked again at creation. */
const PublicJwkSchema = z
  .object({
    kty: z.enum(['RSA', 'EC', 'OKP']).openapi({ example: 'EC' }),
    kid: z.string().min(1).max(256).openapi({ example: 'cluster-2026-11' }),
    alg: z.enum(['RS256', 'ES256', 'EdDSA']).optional(),
    use: z.literal('sig').optional(),
    crv: z.enum(['P-256', 'Ed25519']).optional(),
    n: z
      .string()
      .max(2048)
      .optional()
      .openapi({ description: 'RSA modulus (base64url).', example: 'sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri' }),
    e: z.string().max(16).optional().openapi({ description: 'RSA exponent (base64url).', example: 'AQAB' }),
    x: z
      .string()
      .max(128)
      .optional()
      .openapi({ description: 'EC or Ed25519 x (base64url).', example: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU' }),
    y: z
      .string()
      .max(128)
      .optional()
      .openapi({ description: 'EC y (base64url).', example: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }),
  })
  .strict()
  .openapi('TrustJwk', { description: 'One public signing key (RFC 7517): RSA, EC P-256 or Ed25519, with its `kid`.' });

export const TrustInputSchema = z
  .object({
    issuer: z
      .string()
      .min(1, 'is required')
      .max(2048, 'must be at most 2048 characters')
      .regex(WITHOUT_CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE)
      .openapi({
        description:
          'The issuer exactly as its tokens name it (`iss`), an https URL. Unless `jwks` is given, its discovery (`/.well-known/openid-configuration`) and key set are fetched at first use, through the same address checks as webhooks: plain http and private or loopback addresses only under `IDENTITY_ISSUER_ALLOW_HTTP` / `IDENTITY_ISSUER_ALLOW_PRIVATE`; a metadata address never.',
        example: 'https://token.actions.githubusercontent.com',
      }),
    audiences: z
      .array(z.string().min(1).max(256).regex(WITHOUT_CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE))
      .min(1, 'must name at least one audience')
      .max(TRUST_MAX_AUDIENCES, `must name at most ${TRUST_MAX_AUDIENCES} audiences`)
      .openapi({ description: "The token's `aud` must be one of these.", example: ['https://slowdns.example.net'] }),
    subject_pattern: PatternSchema.optional(),
    claims: z
      .record(ClaimNameSchema, PatternSchema, {
        error: (issue) => (issue.code === 'invalid_key' ? `is not a claim name: ${CLAIM_NAME_MESSAGE}` : undefined),
      })
      .refine((rules) => Object.keys(rules).length <= TRUST_MAX_CLAIM_RULES, {
        message: `must hold at most ${TRUST_MAX_CLAIM_RULES} rules`,
      })
      .optional()
      .openapi({
        description:
          'Top-level claim name → pattern; every rule must hold (a claim that is missing or not a string fails). Pin ids, not names that can be renamed: `repository_owner_id`, `namespace_id`.',
        example: { repository_owner_id: '1234567', ref: 'refs/heads/main' },
      }),
    jwks: z
      .object({
        keys: z
          .array(PublicJwkSchema)
          .min(1, 'must hold at least one key')
          .max(TRUST_MAX_KEYS, `must hold at most ${TRUST_MAX_KEYS} keys`)
          .openapi({ example: EXAMPLE_JWKS.keys }),
      })
      .optional()
      .openapi({
        description:
          "The issuer's public keys, inline, for an issuer the service cannot or should not reach (a cluster's own service-account issuer): nothing is fetched.",
        example: EXAMPLE_JWKS,
      }),
    tags_from_claims: z
      .record(z.string().regex(TAG_KEY_PATTERN, 'is not a tag key'), ClaimNameSchema)
      .refine((pairs) => Object.keys(pairs).length <= FLEET_CODE_MAX_TAGS, {
        message: `must map at most ${FLEET_CODE_MAX_TAGS} tags`,
      })
      .optional()
      .openapi({
        description:
          "Tag → claim name: the activation and server carry the token's claim as that tag (a string of 1 to 64 characters, else the token is not allowed). A tag the code fixes in `tags` cannot come from a claim.",
        example: { repo: 'repository' },
      }),
    max_lifetime_seconds: z
      .number()
      .int('must be a whole number')
      .min(MIN_LIFETIME_SECONDS, `must be at least ${MIN_LIFETIME_SECONDS}`)
      .max(MAX_LIFETIME_SECONDS, `must be at most ${MAX_LIFETIME_SECONDS}`)
      .default(DEFAULT_MAX_LIFETIME_SECONDS)
      .openapi({
        format: 'int32',
        description: `A token whose \`exp\` - \`iat\` is longer is refused (default ${DEFAULT_MAX_LIFETIME_SECONDS}).`,
        example: DEFAULT_MAX_LIFETIME_SECONDS,
      }),
  })
  .strict()
  .superRefine((trust, ctx) => {
    const patterns = [trust.subject_pattern, ...Object.values(trust.claims ?? {})].filter(
      (p): p is string => p !== undefined,
    );
    if (patterns.length === 0)
      ctx.addIssue({ code: 'custom', path: ['subject_pattern'], message: 'subject_pattern or claims is required' });
    else if (!patterns.some(hasLiteralSegment))
      ctx.addIssue({
        code: 'custom',
        path: ['subject_pattern'],
        message:
          'one rule must hold a literal segment (a part between /, : and . without *): GitHub, GitLab.com and Google issue tokens to anyone',
      });
  })
  .openapi('TrustInput', {
    description:
      "DESIGN §25: machines enroll with a token from this issuer whose claims hold these rules, and no secret. The code's other rules (uses, TTL up to 365 days, CIDRs, approval, machine proof, tags) apply as well.",
  });

/** The block as shown on the code: what was written, `max_lifetime_seconds` filled in. */
export const TrustSchema = z
  .object({
    issuer: z.string().max(2048).openapi({ example: 'https://token.actions.githubusercontent.com' }),
    audiences: z
      .array(z.string().max(256))
      .max(TRUST_MAX_AUDIENCES)
      .openapi({ example: ['https://slowdns.example.net'] }),
    subject_pattern: z
      .string()
      .max(MAX_PATTERN_LENGTH)
      .optional()
      .openapi({ example: 'repo:example-org/dns-fleet:ref:refs/heads/main' }),
    claims: z
      .record(z.string().max(64), z.string().max(MAX_PATTERN_LENGTH))
      .optional()
      .openapi({ example: { repository_owner_id: '1234567' } }),
    jwks: z
      .object({
        keys: z
          .array(z.record(z.string().max(16), z.string().max(2048)))
          .max(TRUST_MAX_KEYS)
          .openapi({ example: EXAMPLE_JWKS.keys }),
      })
      .optional()
      .openapi({ description: 'The inline public keys, as given.', example: EXAMPLE_JWKS }),
    tags_from_claims: z
      .record(z.string().max(32), z.string().max(64))
      .optional()
      .openapi({ example: { repo: 'repository' } }),
    max_lifetime_seconds: z.number().int().min(MIN_LIFETIME_SECONDS).max(MAX_LIFETIME_SECONDS).openapi({
      format: 'int32',
      example: DEFAULT_MAX_LIFETIME_SECONDS,
    }),
  })
  .openapi('Trust', { description: 'The workload identity this code trusts (DESIGN §25).' });
