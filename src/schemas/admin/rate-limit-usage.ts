import { isIP } from 'node:net';
import { z } from '@hono/zod-openapi';
import { OVERRIDE_QUOTA_MAX } from '../../domain/rate-limits/overrides.js';
import { DAY_SECONDS, HOUR_SECONDS, rateLimitPolicies } from '../../domain/rate-limits/policies.js';
import { ipAddressFormats } from '../machine.js';
import { TimestampSchema } from '../install-code.js';
import { OverrideSubjectSchema, RateLimitOverrideIdSchema } from './rate-limit-overrides.js';

export const RateLimitUsageQuerySchema = z
  .object({
    ip: z
      .string()
      .max(45, 'must be an IPv4 or IPv6 address')
      .refine((ip) => !ip.includes('%') && isIP(ip) !== 0, 'must be an IPv4 or IPv6 address (no zone index, no port)')
      .optional()
      .openapi({
        ...ipAddressFormats,
        description: 'A client address: its buckets of the limits counted per IP (an IPv6 address by its /64).',
        example: '203.0.113.7',
      }),
    machine: z
      .string()
      .max(32, 'must be a machine id: the 32 lower-case hex characters of /etc/machine-id')
      .regex(/^[0-9a-f]{32}$/, 'must be a machine id: the 32 lower-case hex characters of /etc/machine-id')
      .optional()
      .openapi({
        description: 'A `machine_id`: its buckets of the limits counted per machine.',
        example: '4c4c4544003957108052b4c04f384833',
      }),
  })
  .superRefine((query, ctx) => {
    if ((query.ip === undefined) === (query.machine === undefined))
      ctx.addIssue({ code: 'custom', path: ['ip'], message: 'give exactly one of ip and machine' });
  });

const AppliedOverrideSchema = z
  .object({
    rate_limit_override_id: RateLimitOverrideIdSchema,
    subject: OverrideSubjectSchema,
    value: z.string().max(64).openapi({ example: '203.0.113.0/24' }),
    reason: z.string().max(200).openapi({ example: 'Campus NAT during the workshop.' }),
    expires_at: TimestampSchema,
    created_by: z.string().max(128).openapi({ example: 'root' }),
  })
  .openapi('AppliedRateLimitOverride', {
    description:
      'The override that sets this quota: the most specific one in place for the subject (a single address before a network, a narrower network before a wider one).',
  });

export const RateLimitUsageSchema = z
  .object({
    subject: z.enum(['ip', 'machine']).openapi({ example: 'ip' }),
    value: z
      .string()
      .max(45)
      .openapi({ description: 'The address (in its one spelling) or machine id asked about.', example: '203.0.113.7' }),
    counted_as: z.string().max(45).openapi({
      description: "What the limits count it under: the address, an IPv6 address's /64, or the machine id.",
      example: '203.0.113.7',
    }),
    limits: z
      .array(
        z.object({
          limit_name: z
            .enum(rateLimitPolicies.map((p) => p.name) as [string, ...string[]])
            .openapi({ example: 'issue-ip-hour' }),
          window_seconds: z
            .number()
            .int()
            .min(HOUR_SECONDS)
            .max(DAY_SECONDS)
            .openapi({ format: 'int32', example: 3600 }),
          bucket_start: TimestampSchema,
          resets_at: TimestampSchema,
          used: z
            .number()
            .int()
            .min(0)
            .max(OVERRIDE_QUOTA_MAX)
            .openapi({ format: 'int32', description: 'Requests counted in the current bucket.', example: 2 }),
          limit: z
            .number()
            .int()
            .min(1)
            .max(OVERRIDE_QUOTA_MAX)
            .openapi({ format: 'int32', description: 'The quota that applies now.', example: 20 }),
          default_limit: z
            .number()
            .int()
            .min(1)
            .max(OVERRIDE_QUOTA_MAX)
            .openapi({ format: 'int32', description: "The limit's own quota.", example: 3 }),
          remaining: z.number().int().min(0).max(OVERRIDE_QUOTA_MAX).openapi({ format: 'int32', example: 18 }),
          override: AppliedOverrideSchema.nullable().openapi({
            description: 'Why `limit` differs from `default_limit`; `null`: the default applies.',
          }),
        }),
      )
      .max(rateLimitPolicies.length),
  })
  .openapi('RateLimitUsage', {
    description:
      "Where one address or machine stands in each limit counted per IP or per machine: the current bucket's count and the quota that applies, with the override that sets it.",
  });
