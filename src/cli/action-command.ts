import type { Command } from 'commander';
import { adminApi, dataOf, type AdminApi, type Answer } from './admin-api.js';
import { connectionFrom, connectionOptions, type ConnectionFlags } from './connection.js';
import { outputFor, type CliContext } from './context.js';
import { print, type Row } from './output.js';

/** An operator action on one item (`codes revoke <id>`, …): one admin call, the item printed as it now is. */
export function actionCommand<T, F extends ConnectionFlags & { json?: boolean }>(
  group: Command,
  context: CliContext,
  spec: {
    name: string;
    argument: [string, string];
    description: string;
    options?(command: Command): Command;
    act(api: AdminApi, id: string, flags: F): Promise<Answer<T>>;
    row(item: T): Row;
    columns: string[];
    done(item: T): string;
  },
): void {
  const command = group
    .command(spec.name)
    .description(spec.description)
    .argument(...spec.argument);
  spec.options?.(command);
  connectionOptions(command)
    .option('--json', 'print the result as JSON')
    .action(async (id: string, flags: F) => {
      const connection = connectionFrom(context.env, flags);
      const item = await dataOf(connection.url, spec.act(adminApi(connection), id, flags));
      print(outputFor(context, flags), item, [spec.row(item)], spec.columns, spec.done(item));
    });
}
