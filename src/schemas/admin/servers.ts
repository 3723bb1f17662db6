import { withEvents } from './object-history.js';
import { z } from '@hono/zod-openapi';
import { TagsSchema, tagFilter } from '../tags.js';
import { COPIED_AGENT_ALTERNATIONS } from '../../domain/servers/registration.js';
import { ActivationIdSchema } from '../activation.js';
import { TimestampSchema } from '../install-code.js';
import {
  HostnameValueSchema,
  MachineIdValueSchema,
  PublicIpValueSchema,
  SshFingerprintValueSchema,
} from '../machine.js';
import { AgentVersionSchema, ServerIdSchema, ServerStatusValueSchema, ServiceReportSchema } from '../server.js';
import { exampleCursor, listQuerySchema, nullableTimestamp, pageOf, searchFilters, textFilter } from './list.js';

export const ServerHealthSchema = z.enum(['active', 'stale', 'dead', 'revoked']).openapi('ServerHealth', {
  description:
    'Derived from check-ins, never stored: `active` (seen within 2 check-in intervals, 600 s), `stale` (not seen for longer: two check-ins missed), `dead` (not seen for `SERVER_DEAD_AFTER_SECONDS`, a day by default), `revoked`. A server that never checked in counts from its registration.',
});

const EXAMPLE_CURSOR = exampleCursor('srv_9c1e0f4a7b2d3e58', '2026-11-22T10:00:00Z');

export const ServerListQuerySchema = listQuerySchema(EXAMPLE_CURSOR).extend({
  status: ServerHealthSchema.optional().openapi({ description: 'Only servers of this health.' }),
  ...searchFilters("Part of the hostname, or the start of the server's id", 'the server'),
  hostname: textFilter('Exact hostname.', 'vpn1.example.net'),
  tag: tagFilter(),
});

export const ServerRecordAdminSchema = z
  .object({
    server_id: ServerIdSchema,
    activation_id: ActivationIdSchema,
    status: ServerStatusValueSchema,
    health: ServerHealthSchema,
    hostname: HostnameValueSchema,
    public_ip: PublicIpValueSchema,
    machine_id: MachineIdValueSchema,
    ssh_fingerprint: SshFingerprintValueSchema,
    agent_version: AgentVersionSchema,
    registered_at: TimestampSchema,
    last_seen_at: nullableTimestamp('Its last accepted check-in; `null` if it never checked in.'),
    revoked_at: nullableTimestamp('When it was revoked.'),
    last_report: z
      .object({
        agent_version: AgentVersionSchema,
        uptime_seconds: z
          .number()
          .int()
          .min(0)
          .max(Number.MAX_SAFE_INTEGER)
          .openapi({ format: 'int64', description: 'Seconds since the machine booted.', example: 86400 }),
        services: z.array(ServiceReportSchema).max(32),
      })
      .nullable()
      .openapi({ description: 'What its last check-in reported; `null` before the first.' }),
    agent_copy_suspected: z.boolean().openapi({
      description: `True when its agent token has gone back and forth between two addresses ${COPIED_AGENT_ALTERNATIONS} times in a row (A → B → A → B): the sign of one agent copied onto two machines, as check-ins carry no machine id. A single move to a new address never sets it; a check-in from a third address starts the count afresh.`,
      example: false,
    }),
    checkin_addresses: z
      .array(z.string().max(45))
      .max(2)
      .openapi({
        description:
          'The addresses of its last check-ins from different addresses, the latest first (as the service saw them, after `TRUST_PROXY`); empty before the first.',
        example: ['203.0.113.7'],
      }),
    tags: TagsSchema,
  })
  .openapi('ServerAdminRecord', { description: 'A server as an operator sees it: never its agent token.' });

export const ServerPageSchema = pageOf(ServerRecordAdminSchema, EXAMPLE_CURSOR).openapi('ServerPage');

export const ServerIdParamsSchema = z.object({
  server_id: ServerIdSchema.openapi({ param: { name: 'server_id', in: 'path' } }),
});

export const ServerWithEventsSchema = withEvents(
  ServerRecordAdminSchema,
  'ServerWithEvents',
  'A server as the list shows it, with its events.',
);
