import type { Command } from 'commander';
import type { CliContext } from './context.js';
import { eventColumns, eventRow } from './event-rows.js';
import { listCommand, type ListFlags } from './list-command.js';
import type { components } from '../../clients/typescript/src/schema.js';

type EventRecord = components['schemas']['EventRecord'];

type ListFilters = ListFlags & { type?: EventRecord['type']; subjectId?: string };

/** `events list` over the admin API. */
export function registerEventsCommands(program: Command, context: CliContext): void {
  const events = program.command('events').description('the event trail of a running service (admin API): list');
  listCommand(events, context, {
    description: 'events, newest first: what changed, when, by whom, for which code, activation or server',
    filters: (c) =>
      c
        .option('--type <type>', 'e.g. install_code.issued, activation.released, server.revoked')
        .option('--subject-id <id>', 'an install code (ic_…), activation (act_…) or server (srv_…) id'),
    query: (f: ListFilters) => ({ type: f.type, subject_id: f.subjectId }),
    fetch: (api, query) => api.GET('/api/v2/admin/events', { params: { query } }),
    path: '/api/v2/admin/events',
    row: eventRow,
    columns: eventColumns,
  });
}
