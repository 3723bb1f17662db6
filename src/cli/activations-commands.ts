import type { Command } from 'commander';
import { actionCommand } from './action-command.js';
import type { CliContext } from './context.js';
import { showCommand } from './show-command.js';
import { listCommand, type ListFlags } from './list-command.js';
import type { Row } from './output.js';
import { searchOptions, searchQuery, type SearchFlags } from './search-options.js';
import type { components } from '../../clients/typescript/src/schema.js';

type ActivationRecord = components['schemas']['ActivationRecord'];
type ReleaseResult = components['schemas']['ReleaseResult'];

const row = (a: ActivationRecord): Row => ({
  id: a.activation_id,
  status: a.status,
  hostname: a.machine_binding.hostname,
  public_ip: a.machine_binding.public_ip,
  machine_id: a.machine_binding.machine_id,
  ref: a.requested_ref,
  created_at: a.created_at,
  server: a.server ? `${a.server.server_id} (${a.server.status})` : null,
});
const columns = ['id', 'status', 'hostname', 'public_ip', 'machine_id', 'ref', 'created_at', 'server'];

type ListFilters = ListFlags &
  SearchFlags & { status?: ActivationRecord['status']; hostname?: string; publicIp?: string; installCodeId?: string };

/** `activations list|release` over the admin API. */
export function registerActivationsCommands(program: Command, context: CliContext): void {
  const activations = program
    .command('activations')
    .description('activations on a running service (admin API): list, show, release');
  showCommand<components['schemas']['ActivationWithEvents']>(activations, context, {
    argument: ['<activation_id>', 'the activation (act_…)'],
    description: 'one activation, its server, and its events, oldest first',
    fetch: (api, id) =>
      api.GET('/api/v2/admin/activations/{activation_id}', { params: { path: { activation_id: id } } }),
    row,
    columns,
  });
  listCommand(activations, context, {
    description:
      'activations, newest first, with their machine binding, requested ref, installer version, times and server',
    filters: (c) =>
      searchOptions(c, 'the hostname or the activation id', 'the activated machine')
        .option('--status <status>', 'activated, confirmed or released')
        .option('--hostname <name>', 'the hostname the operator confirmed (exact)')
        .option('--public-ip <ip>', 'the public IP address (exact)')
        .option('--install-code-id <id>', 'the install code (ic_…) it used'),
    query: (f: ListFilters) => ({
      ...searchQuery(f),
      status: f.status,
      hostname: f.hostname,
      public_ip: f.publicIp,
      install_code_id: f.installCodeId,
    }),
    fetch: (api, query) => api.GET('/api/v2/admin/activations', { params: { query } }),
    path: '/api/v2/admin/activations',
    row,
    columns,
  });
  actionCommand<ReleaseResult, { json?: boolean; restore?: boolean; reason?: string }>(activations, context, {
    name: 'release',
    argument: ['<activation_id>', 'the activation (act_…)'],
    description:
      "force-release an unconfirmed activation, as the installer's release does; its server is revoked (idempotent)",
    options: (c) =>
      c
        .option('--no-restore', 'do not give the install code back: it is revoked instead')
        .option('--reason <text>', "why, kept in the events with the operator's name"),
    act: (api, id, flags) =>
      api.POST('/api/v2/admin/activations/{activation_id}/release', {
        params: { path: { activation_id: id } },
        body: { restore_install_code: flags.restore !== false, reason: flags.reason },
      }),
    row: (r) => ({ id: r.activation_id, status: r.status, install_code_restored: r.install_code_restored }),
    columns: ['id', 'status', 'install_code_restored'],
    done: (r) =>
      `${r.activation_id} is ${r.status}${r.install_code_restored ? '; its install code can be used again' : ''}.`,
  });
}
