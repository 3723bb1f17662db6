import { z } from '@hono/zod-openapi';
import { CONTROL_CHARACTERS_MESSAGE, WITHOUT_CONTROL_CHARACTERS } from '../control-characters.js';
import { TimestampSchema } from '../install-code.js';
import { ACCEPTED_TIME_MESSAGE, withinAcceptedTimes } from '../accepted-time.js';
import { nullableTimestamp } from './list.js';
import { OperatorReasonSchema } from './operator-reason.js';

const OperatorTokenIdSchema = z
  .string()
  .max(20)
  .regex(/^opt_[0-9a-f]{16}$/, 'must be an operator token id: opt_ and 16 lower-case hex characters')
  .openapi({
    description:
      "An operator token's id (`opt_` + 16 lower-case hex characters): it names the token, and is not the token.",
    example: 'opt_3c9a1e7f05d2b468',
  });

export const OperatorTokenIdParamsSchema = z.object({
  id: OperatorTokenIdSchema.openapi({ param: { name: 'id', in: 'path' } }),
});

const OperatorTokenScopeSchema = z.enum(['read', 'write']).openapi('OperatorTokenScope', {
  description:
    '`read`: the lists and objects of the admin API. `write`: those and the operator actions (revoke, release, overrides). Only `ADMIN_TOKEN` manages operator tokens.',
  example: 'read',
});

const OPERATOR_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export const OperatorNameSchema = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : undefined) })
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  .regex(WITHOUT_CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE)
  // Only lower-case ASCII (DESIGN §23): no name can pass for another in the audit trail (`Root`, `root `, a
  // zero-width space, a Cyrillic о). Tokens made before keep their names.
  .regex(
    OPERATOR_NAME_PATTERN,
    'must be lower-case letters, digits, dots, underscores or hyphens, starting with a letter or digit',
  )
  .refine((name) => name !== 'root', 'must not be `root`, the name of ADMIN_TOKEN')
  .openapi({
    description:
      'Who acts with this token, as events and overrides name them (`operator`): 1 to 64 characters of `[a-z0-9._-]`, the first a letter or digit, not `root` (that is `ADMIN_TOKEN`). Names made before this rule keep theirs.',
    example: 'grafana',
  });

export const OperatorTokenRequestSchema = z
  .object({
    name: OperatorNameSchema,
    scope: OperatorTokenScopeSchema,
    expires_at: z.iso
      .datetime({ offset: true, message: 'must be an ISO 8601 timestamp such as 2027-01-01T00:00:00+00:00' })
      .max(40, 'must be an ISO 8601 timestamp such as 2027-01-01T00:00:00+00:00')
      .refine(withinAcceptedTimes, ACCEPTED_TIME_MESSAGE)
      .optional()
      .openapi({
        description:
          'When the token stops working, by itself: in the future and before the year 10000 (else 400 `validation_failed`). Left out, it works until revoked.',
        example: '2027-01-01T00:00:00+00:00',
      }),
    reason: OperatorReasonSchema,
  })
  .openapi('OperatorTokenRequest');

export const OperatorTokenRecordSchema = z
  .object({
    operator_token_id: OperatorTokenIdSchema,
    name: z.string().max(64).openapi({ description: 'Who acts with it (`operator` in events).', example: 'grafana' }),
    scope: OperatorTokenScopeSchema,
    status: z.enum(['active', 'expired', 'revoked']).openapi('OperatorTokenStatus', {
      description: '`active`, `expired` (past `expires_at`) or `revoked`: only an active token is accepted.',
      example: 'active',
    }),
    created_at: TimestampSchema,
    expires_at: nullableTimestamp('When it stops working by itself; `null`: never.'),
    last_used_at: nullableTimestamp(
      'When it was last accepted, to the minute (written at most once a minute); `null`: never used.',
    ),
    revoked_at: nullableTimestamp('When it was revoked; `null`: it was not.'),
    created_by: z.string().max(320).nullable().openapi({
      description:
        'Who made it: `root` (ADMIN_TOKEN), or the operator signed in through the identity provider who minted it in the console (their email, else their `sub`); `null` for tokens made before this was kept.',
      example: 'root',
    }),
  })
  .openapi('OperatorTokenRecord', {
    description: 'A named operator token: never the token itself (the service keeps only its hash).',
  });

// A schema of its own (the record's fields and the token), not an extension: the document shows it whole.
export const CreatedOperatorTokenSchema = z
  .object({
    ...OperatorTokenRecordSchema.shape,
    token: z.string().max(64).openapi({
      description:
        'The token, `sdo_` + 43 URL-safe characters. Shown this once: the service keeps only its hash. Send it as `Authorization: Bearer <token>`.',
      example: 'sdo_q3Jz8cW1vH0yXbN5tK2mR7pL4sD9fG6aE1uY0iO3wQe',
    }),
  })
  .openapi('CreatedOperatorToken', {
    description: 'A named operator token just made, with the token itself (shown this once).',
    example: {
      operator_token_id: 'opt_3c9a1e7f05d2b468',
      name: 'grafana',
      scope: 'read',
      status: 'active',
      created_at: '2026-11-22T10:00:00+00:00',
      expires_at: '2027-01-01T00:00:00+00:00',
      last_used_at: null,
      revoked_at: null,
      created_by: 'root',
      token: 'sdo_q3Jz8cW1vH0yXbN5tK2mR7pL4sD9fG6aE1uY0iO3wQe',
    },
  });

export const OperatorTokenListSchema = z
  .object({ items: z.array(OperatorTokenRecordSchema).max(10_000) })
  .openapi('OperatorTokenList');
