import { z } from '@hono/zod-openapi';
import { ActivationIdSchema, EXAMPLE_INSTALL_TOKEN, tokenInput } from './activation.js';
import { TimestampSchema } from './install-code.js';
import { SHELL_SAFE_SENTENCE } from './shell-safe.js';
import { HostnameValueSchema } from './machine.js';

export const ServerIdSchema = z
  .string()
  .max(20, 'must be srv_ followed by 16 hex characters')
  .regex(/^srv_[0-9a-f]{16}$/, 'must be srv_ followed by 16 hex characters')
  .openapi({
    description: `Server id: \`srv_\` + 16 hex characters. ${SHELL_SAFE_SENTENCE}`,
    example: 'srv_9c1e0f4a7b2d3e58',
  });

/** Dotted numbers (a dotted date such as 2026.11.20.1, or semver) with an optional pre-release or build suffix. */
export const AgentVersionSchema = z
  .string()
  .max(64, 'must be at most 64 characters')
  .regex(
    /^\d{1,10}(?:\.\d{1,10}){1,3}(?:[-+][0-9A-Za-z.+-]{1,40})?$/,
    'must be a dotted version such as 2026.11.20.1 or 1.4.2-rc.1',
  )
  .openapi({
    description:
      'Version of the server agent: 2 to 4 dotted numbers (a dotted date like `2026.11.20.1`, or semver like `1.4.2`), optionally followed by `-` or `+` and a pre-release or build tag; at most 64 characters.',
    example: '2026.11.20.1',
  });

const CheckinIntervalSchema = z
  .number()
  .int()
  .min(1)
  .max(86_400)
  .openapi({ format: 'int32', description: 'Seconds the agent should wait before its next check-in.', example: 300 });

export const ServerStatusValueSchema = z.enum(['active', 'revoked']).openapi({
  description: '`revoked` servers must stop their agent: the service will not take their reports.',
  example: 'active',
});

export const RegisterRequestSchema = z
  .object({
    activation_id: ActivationIdSchema,
    install_token: tokenInput(
      'The install token activate returned: unused (register comes before confirm) and unexpired.',
      EXAMPLE_INSTALL_TOKEN,
    ),
    agent_version: AgentVersionSchema,
  })
  .openapi('RegisterRequest');

export const RegisteredServerSchema = z
  .object({
    server_id: ServerIdSchema,
    agent_token: z
      .string()
      .max(43)
      .regex(/^[A-Za-z0-9_-]{43}$/)
      .openapi({
        description: `Secret bearer token of the agent: 256 random bits, base64url without padding (43 characters). Shown only in this answer: the service keeps its SHA-256. ${SHELL_SAFE_SENTENCE}`,
        example: 'q0Hc8Qp3y9oZ1xVb2L7nTgW4eK6mJ5rA8sD3fU0iN1c',
      }),
    checkin_interval_seconds: CheckinIntervalSchema,
  })
  .openapi('RegisteredServer');

/** systemd unit names: letters, digits and `:_.@\-`; bounded so a report stays small. */
export const ServiceReportSchema = z
  .object({
    name: z
      .string()
      .max(128, 'must be at most 128 characters')
      .regex(/^[A-Za-z0-9:_.@\\-]{1,128}$/, 'must be a service (unit) name of 1 to 128 letters, digits or :_.@\\-')
      .openapi({ description: 'Service (systemd unit) name.', example: 'slowdns-server.service' }),
    state: z
      .enum(['active', 'inactive', 'failed', 'unknown'])
      .openapi({ description: 'State of the service as the agent sees it.', example: 'active' }),
  })
  .openapi('ServiceReport', { example: { name: 'slowdns-server.service', state: 'active' } });

export const CheckinRequestSchema = z
  .object({
    agent_version: AgentVersionSchema,
    uptime_seconds: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .max(Number.MAX_SAFE_INTEGER, 'must be a safe integer')
      .openapi({ format: 'int64', description: 'Seconds since the machine booted.', example: 86400 }),
    services: z
      .array(ServiceReportSchema)
      .max(32, 'must list at most 32 services')
      .refine((list) => new Set(list.map((s) => s.name)).size === list.length, 'must not name a service twice')
      .default([])
      .openapi({
        description:
          'The state of each service the agent watches: at most 32, each named once. Defaults to an empty list.',
        example: [
          { name: 'slowdns-server.service', state: 'active' },
          { name: 'slowdns-agent.service', state: 'active' },
        ],
      }),
  })
  .openapi('CheckinRequest', {
    description: 'Fields this version does not know are ignored (and not stored), so a newer agent can still check in.',
  });

/** What an agent reports at check-in (unknown fields stripped): the wire schema is its one definition. */
export type AgentReport = z.infer<typeof CheckinRequestSchema>;

export const CheckinResultSchema = z
  .object({ status: ServerStatusValueSchema, checkin_interval_seconds: CheckinIntervalSchema })
  .openapi('CheckinResult');

export const RevokeRequestSchema = z
  .object({
    server_id: ServerIdSchema.optional().openapi({
      description:
        "The server to revoke. Required with the operator token; with an agent token it may be left out, and if given must be that agent's own server.",
    }),
  })
  .openapi('RevokeRequest');

export const RevokeResultSchema = z
  .object({
    server_id: ServerIdSchema,
    status: z.literal('revoked').openapi({ example: 'revoked' }),
    revoked_at: TimestampSchema.openapi({
      description: 'When the server was first revoked; a repeated revoke answers the same instant.',
    }),
  })
  .openapi('RevokeResult');

export const ServiceStatusSchema = z
  .object({
    service: z.literal('slowdns-activation').openapi({ example: 'slowdns-activation' }),
    version: z
      .string()
      .max(32)
      .regex(/^[0-9]+\.[0-9]+\.[0-9]+$/)
      .openapi({ description: 'Version of the API contract.', example: '2.0.0' }),
    time: TimestampSchema.openapi({ description: "The service's current time." }),
    database: z.literal('reachable').openapi({
      example: 'reachable',
      description: 'Always `reachable` in a 200 answer: an unreachable database is 503 `service_unavailable`.',
    }),
  })
  .openapi('ServiceStatus', {
    description: 'The answer without credentials.',
    example: {
      service: 'slowdns-activation',
      version: '2.0.0',
      time: '2026-11-22T10:00:00+00:00',
      database: 'reachable',
    },
  });

export const ServerRecordSchema = z
  .object({
    server_id: ServerIdSchema,
    status: ServerStatusValueSchema,
    hostname: HostnameValueSchema,
    registered_at: TimestampSchema,
    last_seen_at: TimestampSchema.nullable().openapi({
      description: 'The last accepted check-in; null before the first one.',
    }),
  })
  .openapi('ServerRecord', {
    description: "The answer with an agent token: that agent's server.",
    example: {
      server_id: 'srv_9c1e0f4a7b2d3e58',
      status: 'active',
      hostname: 'vpn1.example.net',
      registered_at: '2026-11-22T10:00:00+00:00',
      last_seen_at: '2026-11-22T10:05:00+00:00',
    },
  });

export const StatusSchema = z.union([ServiceStatusSchema, ServerRecordSchema]).openapi('Status');
