import { z } from '@hono/zod-openapi';
import { ActivationIdSchema } from '../activation.js';
import { TimestampSchema } from '../install-code.js';
import { HostnameValueSchema, MachineIdValueSchema, PublicIpValueSchema, SshFingerprintValueSchema } from '../machine.js';
import { AgentVersionSchema, ServerIdSchema, ServerStatusValueSchema, ServiceReportSchema } from '../server.js';
import { ListQuerySchema, nullableTimestamp, pageOf } from './list.js';

export const ServerHealthSchema = z
  .enum(['active', 'stale', 'dead', 'revoked'])
  .openapi('ServerHealth', {
    description:
      'Derived from check-ins, never stored: `active` (seen within 2 check-in intervals, 600 s), `stale` (not seen for longer: two check-ins missed), `dead` (not seen for `SERVER_DEAD_AFTER_SECONDS`, a day by default), `revoked`. A server that never checked in counts from its registration.',
  });

export const ServerListQuerySchema = ListQuerySchema.extend({
  status: ServerHealthSchema.optional().openapi({ description: 'Only servers of this health.' }),
  hostname: z.string().min(1).max(253).optional().openapi({ description: 'Exact hostname.' }),
  machine_id: z.string().min(1).max(128).optional().openapi({ description: 'Exact machine id.' }),
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
        uptime_seconds: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).openapi({ format: 'int64', description: 'Seconds since the machine booted.', example: 86400 }),
        services: z.array(ServiceReportSchema).max(32),
      })
      .nullable()
      .openapi({ description: 'What its last check-in reported; `null` before the first.' }),
  })
  .openapi('ServerAdminRecord', { description: 'A server as an operator sees it: never its agent token.' });

export const ServerPageSchema = pageOf(ServerRecordAdminSchema).openapi('ServerPage');

export const ServerIdParamsSchema = z.object({
  server_id: ServerIdSchema.openapi({ param: { name: 'server_id', in: 'path' } }),
});
