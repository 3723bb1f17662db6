import type { Command } from 'commander';
import { actionCommand } from './action-command.js';
import type { CliContext } from './context.js';
import { showCommand } from './show-command.js';
import { listCommand, type ListFlags } from './list-command.js';
import type { Row } from './output.js';
import { searchOptions, searchQuery, type SearchFlags } from './search-options.js';
import type { components } from '../../clients/typescript/src/schema.js';

type ServerRecord = components['schemas']['ServerAdminRecord'];
type RevokeResult = components['schemas']['RevokeResult'];

const row = (s: ServerRecord): Row => ({
  id: s.server_id,
  health: s.health,
  hostname: s.hostname,
  public_ip: s.public_ip,
  agent: s.agent_version,
  last_seen_at: s.last_seen_at,
  registered_at: s.registered_at,
});
const columns = ['id', 'health', 'hostname', 'public_ip', 'agent', 'last_seen_at', 'registered_at'];

type ListFilters = ListFlags & SearchFlags & { status?: ServerRecord['health']; hostname?: string };

/** `servers list|revoke` over the admin API. */
export function registerServersCommands(program: Command, context: CliContext): void {
  const servers = program
    .command('servers')
    .description('registered servers on a running service (admin API): list, show, revoke');
  showCommand<components['schemas']['ServerWithEvents']>(servers, context, {
    argument: ['<server_id>', 'the server (srv_…)'],
    description: 'one server, its health, and its events, oldest first',
    fetch: (api, id) => api.GET('/api/v2/admin/servers/{server_id}', { params: { path: { server_id: id } } }),
    row,
    columns,
  });
  listCommand(servers, context, {
    description:
      'servers, newest first, with their health from check-ins (active, stale, dead, revoked), last seen and agent version',
    filters: (c) =>
      searchOptions(c, 'the hostname or the server id', 'the server')
        .option('--status <health>', 'active, stale, dead or revoked')
        .option('--hostname <name>', 'the hostname (exact)'),
    query: (f: ListFilters) => ({ ...searchQuery(f), status: f.status, hostname: f.hostname }),
    fetch: (api, query) => api.GET('/api/v2/admin/servers', { params: { query } }),
    path: '/api/v2/admin/servers',
    row,
    columns,
  });
  actionCommand<RevokeResult, { json?: boolean; reason?: string }>(servers, context, {
    name: 'revoke',
    argument: ['<server_id>', 'the server (srv_…)'],
    description: 'revoke a server: its agent token stops working and its next check-in is told so (idempotent)',
    options: (c) => c.option('--reason <text>', "why, kept in the event with the operator's name"),
    act: (api, id, flags) =>
      api.POST('/api/v2/admin/servers/{server_id}/revoke', {
        params: { path: { server_id: id } },
        body: { reason: flags.reason },
      }),
    row: (r) => ({ id: r.server_id, status: r.status, revoked_at: r.revoked_at }),
    columns: ['id', 'status', 'revoked_at'],
    done: (r) => `${r.server_id} is ${r.status}.`,
  });
}
