import type { Command } from 'commander';
import type { components } from '../../clients/typescript/src/schema.js';
import { adminApi, dataOf, type AdminApi, type Answer } from './admin-api.js';
import { connectionFrom, connectionOptions, type ConnectionFlags } from './connection.js';
import { outputFor, type CliContext } from './context.js';
import { eventColumns, eventRow } from './event-rows.js';
import { formatTable, type Row } from './output.js';

type EventRecord = components['schemas']['EventRecord'];

/** `<group> show <id>`: one object as its list shows it, then its events, oldest first. */
export function showCommand<T extends { events: EventRecord[] }>(
  group: Command,
  context: CliContext,
  spec: {
    argument: [string, string];
    description: string;
    fetch(api: AdminApi, id: string): Promise<Answer<T>>;
    row(item: NoInfer<T>): Row;
    columns: string[];
    /** Printed after the object's row, before its events (a code's waiting machines). */
    more?(url: string, api: AdminApi, id: string, item: NoInfer<T>): Promise<string>;
  },
): void {
  connectionOptions(
    group
      .command('show')
      .description(spec.description)
      .argument(...spec.argument),
  )
    .option('--json', 'print the object and its events as JSON')
    .action(async (id: string, flags: ConnectionFlags & { json?: boolean }) => {
      const connection = connectionFrom(context.env, flags);
      const api = adminApi(connection);
      const item = await dataOf(connection.url, spec.fetch(api, id));
      const out = outputFor(context, flags);
      if (out.json) return out.write(`${JSON.stringify(item, null, 2)}\n`);
      out.write(formatTable([spec.row(item)], spec.columns));
      if (spec.more) out.write(await spec.more(connection.url, api, id, item));
      out.write(`\nEvents, oldest first:\n${formatTable(item.events.map(eventRow), eventColumns)}`);
    });
}
