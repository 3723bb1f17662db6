import { z } from '@hono/zod-openapi';
import {
  OVERRIDE_MAX_DAYS,
  OVERRIDE_QUOTA_MAX,
  OVERRIDE_SUBJECTS,
  limitProblem,
  overridablePolicies,
} from '../../domain/rate-limits/overrides.js';
import { TimestampSchema } from '../install-code.js';
import { CONTROL_CHARACTERS_MESSAGE, WITHOUT_CONTROL_CHARACTERS } from '../control-characters.js';
import { exampleCursor, listQuerySchema, nullableTimestamp, pageOf } from './list.js';
import { ACCEPTED_TIME_MESSAGE, withinAcceptedTimes } from '../accepted-time.js';

const EXAMPLE_CURSOR = exampleCursor('rlo_7d41c9e2a05b3f86', '2026-11-22T10:00:00Z');
import { overrideTarget } from './override-target.js';

/** zod's own message for a wrong type, and "is required" for a missing field. */
const required = { error: (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : undefined) };

function textWithoutControlCharacters(maxLength: number) {
  return z
    .string(required)
    .max(maxLength, `must be at most ${maxLength} characters`)
    .regex(WITHOUT_CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE);
}

const limitNames = overridablePolicies.map((p) => p.name) as [string, ...string[]];

export const RateLimitOverrideIdSchema = z
  .string()
  .max(20)
  .regex(/^rlo_[0-9a-f]{16}$/, 'must be a rate-limit override id: rlo_ and 16 lower-case hex characters')
  .openapi({
    description: 'A rate-limit override: `rlo_` + 16 lower-case hex characters.',
    example: 'rlo_7d41c9e2a05b3f86',
  });

export const OverrideSubjectSchema = z.enum(OVERRIDE_SUBJECTS).openapi('RateLimitOverrideSubject', {
  description:
    '`ip`: one address (an IPv6 one sets its whole /64, by which IPv6 clients are counted); `cidr`: a network, /16 to /32 of IPv4, /32 to /64 of IPv6; `machine`: one `machine_id`.',
  example: 'ip',
});

const OverridableLimitNameSchema = z.enum(limitNames).openapi('OverridableLimitName', {
  description:
    'A limit counted per IP address (for `ip` and `cidr`) or per machine (for `machine`): see the README table of limits.',
  example: 'issue-ip-hour',
});

const ReasonSchema = textWithoutControlCharacters(200).min(1, 'must say why, in 1 to 200 characters');

export const RateLimitOverrideRequestSchema = z
  .object({
    subject: OverrideSubjectSchema,
    value: textWithoutControlCharacters(64).openapi({
      description:
        'The address (`203.0.113.7`, `2001:db8:1:2::7`), network (`203.0.113.0/24`, `2001:db8:1200::/40`; host bits zero) or machine id (32 lower-case hex characters), as `subject` says. Stored in one spelling (IPv6 as RFC 5952 writes it, `::ffff:a.b.c.d` as `a.b.c.d`).',
      example: '203.0.113.7',
    }),
    limit_name: OverridableLimitNameSchema,
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(OVERRIDE_QUOTA_MAX, `must be at most ${OVERRIDE_QUOTA_MAX}: an override never makes a limit unlimited`)
      .openapi({
        format: 'int32',
        description: `The quota of this limit's buckets for the target, 1 to ${OVERRIDE_QUOTA_MAX}: higher than the default to let a shared address through, lower to hold one back. The window stays the limit's own.`,
        example: 20,
      }),
    expires_at: z.iso
      .datetime({
        offset: true,
        error: (issue) =>
          issue.input === undefined
            ? 'is required: every override ends by itself'
            : 'must be an ISO 8601 timestamp such as 2026-12-01T00:00:00+00:00',
      })
      .max(40, 'must be an ISO 8601 timestamp such as 2026-12-01T00:00:00+00:00')
      .refine(withinAcceptedTimes, ACCEPTED_TIME_MESSAGE)
      .openapi({
        description: `When the override stops applying, by itself: in the future and at most ${OVERRIDE_MAX_DAYS} days ahead (else 400 \`validation_failed\`). Kept to the whole second.`,
        example: '2026-12-01T00:00:00+00:00',
      }),
    reason: ReasonSchema.openapi({
      description: 'Why, for whoever reads the list or the events later: 1 to 200 characters, no control characters.',
      example: 'Office NAT: 40 people behind one address (ticket 1234).',
    }),
  })
  .superRefine((body, ctx) => {
    const target = overrideTarget(body.subject, body.value);
    if ('problem' in target) ctx.addIssue({ code: 'custom', path: ['value'], message: target.problem });
    const problem = limitProblem(body.subject, body.limit_name);
    if (problem) ctx.addIssue({ code: 'custom', path: ['limit_name'], message: problem });
  })
  .openapi('RateLimitOverrideRequest');

export const RateLimitOverrideRemovalSchema = z
  .object({
    reason: ReasonSchema.optional().openapi({
      description: 'Why it is removed: 1 to 200 characters, no control characters.',
      example: 'The lab session is over.',
    }),
  })
  .openapi('RateLimitOverrideRemoval');

const RateLimitOverrideStatusSchema = z.enum(['active', 'expired', 'removed']).openapi('RateLimitOverrideStatus', {
  description:
    '`active` (in force, on every instance within 10 s of being set), `expired` (past `expires_at`), `removed` (by an operator, or replaced by a newer override for the same limit and target).',
  example: 'active',
});

const operatorName = z.string().max(128).openapi({
  description: 'The operator: the name of the operator token used (`root` for `ADMIN_TOKEN`).',
  example: 'root',
});

export const RateLimitOverrideRecordSchema = z
  .object({
    rate_limit_override_id: RateLimitOverrideIdSchema,
    subject: OverrideSubjectSchema,
    value: z
      .string()
      .max(64)
      .openapi({ description: 'The address, network or machine id, in its one spelling.', example: '203.0.113.7' }),
    applies_to: z.string().max(64).openapi({
      description:
        'What the limiter matches: the address, for an IPv6 address its /64, the network, or the machine id.',
      example: '203.0.113.7',
    }),
    limit_name: OverridableLimitNameSchema,
    limit: z
      .number()
      .int()
      .min(1)
      .max(OVERRIDE_QUOTA_MAX)
      .openapi({ format: 'int32', description: 'The quota it sets.', example: 20 }),
    default_limit: z.number().int().min(1).max(OVERRIDE_QUOTA_MAX).openapi({
      format: 'int32',
      description: "The limit's own quota, which applies again once the override ends.",
      example: 3,
    }),
    status: RateLimitOverrideStatusSchema,
    expires_at: TimestampSchema,
    reason: z
      .string()
      .max(200)
      .openapi({ description: 'Why it was set.', example: 'Office NAT: 40 people behind one address (ticket 1234).' }),
    created_at: TimestampSchema,
    created_by: operatorName,
    removed_at: nullableTimestamp('When it was removed (or replaced); `null` if it was not.'),
    removed_by: operatorName
      .nullable()
      .openapi({ description: 'Who removed it; `null` if nobody did.', example: null }),
    removal_reason: z.string().max(200).nullable().openapi({
      description:
        'Why it was removed (`Replaced by rlo_…` when a newer override took its place); `null` if it was not, or no reason was given.',
      example: null,
    }),
  })
  .openapi('RateLimitOverrideRecord', {
    description:
      "An operator's override of one rate limit for one address, network or machine, with who set it and why.",
  });

export const RateLimitOverridePageSchema = pageOf(RateLimitOverrideRecordSchema, EXAMPLE_CURSOR).openapi(
  'RateLimitOverridePage',
);

export const RateLimitOverrideListQuerySchema = listQuerySchema(EXAMPLE_CURSOR).extend({
  status: RateLimitOverrideStatusSchema.optional(),
  limit_name: OverridableLimitNameSchema.optional(),
});

export const RateLimitOverrideIdParamsSchema = z.object({
  rate_limit_override_id: RateLimitOverrideIdSchema.openapi({ param: { name: 'rate_limit_override_id', in: 'path' } }),
});
