import type { Command } from 'commander';
import { actionCommand } from './action-command.js';
import { registerCodesCreateCommand } from './codes-create-command.js';
import { registerPrecheckDecisionCommands, waitingMachinesText } from './precheck-decision-commands.js';
import type { CliContext } from './context.js';
import { showCommand } from './show-command.js';
import { trustText } from './trust-text.js';
import { listCommand, type ListFlags } from './list-command.js';
import type { Row } from './output.js';
import { searchOptions, searchQuery, type SearchFlags } from './search-options.js';
import { tagsText } from './tag-options.js';
import type { components } from '../../clients/typescript/src/schema.js';

type InstallCodeRecord = components['schemas']['InstallCodeRecord'];

const row = (c: InstallCodeRecord): Row => ({
  id: c.install_code_id,
  hint: c.install_code_hint,
  status: c.status,
  approval: c.approval,
  uses: c.uses,
  spent: c.uses_spent,
  held: c.uses_held,
  tags: tagsText(c.tags),
  issued_at: c.issued_at,
  expires_at: c.expires_at,
  activation: c.activation ? `${c.activation.activation_id} (${c.activation.status}, ${c.activation.hostname})` : null,
});
const columns = [
  'id',
  'hint',
  'status',
  'approval',
  'uses',
  'spent',
  'held',
  'tags',
  'issued_at',
  'expires_at',
  'activation',
];

type ListFilters = ListFlags & SearchFlags & { status?: InstallCodeRecord['status']; hint?: string };

/** `codes list|revoke` over the admin API. */
export function registerCodesCommands(program: Command, context: CliContext): void {
  const codes = program
    .command('codes')
    .description(
      'install codes on a running service (admin API): create, list, show, revoke, and the machines waiting on approval: waiting, approve, deny',
    );
  registerCodesCreateCommand(codes, context);
  showCommand<components['schemas']['InstallCodeWithEvents']>(codes, context, {
    argument: ['<install_code_id>', "the code's id (ic_…)"],
    description: 'one install code and its events (issued, activated, revoked, …), oldest first',
    fetch: (api, id) =>
      api.GET('/api/v2/admin/install-codes/{install_code_id}', { params: { path: { install_code_id: id } } }),
    row,
    columns,
    more: async (url, api, id, code) =>
      `${trustText(code.trust)}${await waitingMachinesText(url, api, id, code.pending_prechecks)}`,
  });
  registerPrecheckDecisionCommands(codes, context);
  listCommand(codes, context, {
    description:
      'install codes, newest first: hint, status, times and the activation that used each (never the code itself)',
    filters: (c) =>
      searchOptions(c, 'the hint or the code id', 'the machine of an activation that used the code')
        .option('--status <status>', 'issued, activated, consumed, exhausted, expired or revoked')
        .option('--hint <text>', 'part of the hint, e.g. its last group'),
    query: (f: ListFilters) => ({ ...searchQuery(f), status: f.status, hint: f.hint }),
    fetch: (api, query) => api.GET('/api/v2/admin/install-codes', { params: { query } }),
    path: '/api/v2/admin/install-codes',
    row,
    columns,
  });
  actionCommand<InstallCodeRecord, { json?: boolean; reason?: string }>(codes, context, {
    name: 'revoke',
    argument: ['<install_code_id>', "the code's id (ic_…), as `codes list` shows it"],
    description: 'revoke an issued code: it can no longer be prechecked or activated (idempotent)',
    options: (c) => c.option('--reason <text>', "why, kept in the event with the operator's name"),
    act: (api, id, flags) =>
      api.POST('/api/v2/admin/install-codes/{install_code_id}/revoke', {
        params: { path: { install_code_id: id } },
        body: { reason: flags.reason },
      }),
    row,
    columns,
    done: (c) => `${c.install_code_id} is ${c.status}.`,
  });
}
