import type { Command } from 'commander';
import { CliError } from './cli-error.js';
import type { CliContext } from './context.js';
import { print, type Row } from './output.js';
import { connectionFrom, connectionOptions, type ConnectionFlags } from './connection.js';
import { adminApi, dataOf, exportList, type AdminApi, type Answer } from './admin-api.js';

/** The flags every list takes, as the admin API's query: page size, cursor and time range. */
export interface ListFlags extends ConnectionFlags {
  limit?: string;
  cursor?: string;
  since?: string;
  until?: string;
  json?: boolean;
  all?: boolean;
  format?: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export type PageQuery = ReturnType<typeof pageQuery>;

const FORMATS = ['table', 'json', 'ndjson'] as const;

function formatOf(flags: ListFlags): (typeof FORMATS)[number] {
  const format = flags.format ?? (flags.json ? 'json' : 'table');
  if (!(FORMATS as readonly string[]).includes(format))
    throw new CliError(`--format must be table, json or ndjson, not ${format}`, 2);
  return format as (typeof FORMATS)[number];
}

function pageQuery(flags: ListFlags) {
  const limit = flags.limit === undefined ? undefined : Number(flags.limit);
  if (limit !== undefined && !Number.isInteger(limit))
    throw new CliError(`--limit must be a whole number, not ${flags.limit}`, 2);
  return { limit, cursor: flags.cursor, since: flags.since, until: flags.until };
}

/**
 * A `list` subcommand: the shared flags, the resource's own filters (added by `filters`, turned into
 * its query parameters by `query`), one page fetched by `fetch` with the paging and time range added,
 * printed as a table of `columns` (`--json`: the page as the API answered it).
 */
export function listCommand<T, F extends ListFlags, Q extends object>(
  group: Command,
  context: CliContext,
  spec: {
    description: string;
    filters(command: Command): Command;
    query(flags: F): Q;
    fetch(api: AdminApi, query: PageQuery & Q): Promise<Answer<Page<T>>>;
    /** The list's path, for its NDJSON export (`--all`). */
    path: string;
    row(item: T): Row;
    columns: string[];
  },
): void {
  const command = group
    .command('list')
    .description(spec.description)
    .option('--limit <n>', 'items per page, 1 to 200 (50 when not given)')
    .option('--cursor <cursor>', 'the next_cursor a previous page printed')
    .option('--since <time>', 'only items at or after this ISO 8601 time (e.g. 2026-11-22T10:00:00Z)')
    .option('--until <time>', 'only items before this ISO 8601 time');
  spec.filters(command);
  connectionOptions(command)
    .option('--all', 'every matching item, not one page (read as the service streams it: NDJSON)')
    .option('--format <format>', 'table (the default), json ({items, next_cursor}) or ndjson (one item per line)')
    .option('--json', 'the same as --format json')
    .action(async (flags: F) => {
      const connection = connectionFrom(context.env, flags);
      const format = formatOf(flags);
      const query = { ...pageQuery(flags), ...spec.query(flags) };
      if (flags.all) {
        const { limit: _, ...exportQuery } = query;
        const params = exportQuery as Record<string, string | number | undefined>;
        if (format === 'ndjson') return exportList(connection, spec.path, params, context.write);
        let text = '';
        await exportList(connection, spec.path, params, (chunk) => (text += chunk));
        const items = text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as T);
        return print(
          { json: format === 'json', write: context.write },
          { items, next_cursor: null },
          items.map(spec.row),
          spec.columns,
        );
      }
      const page = await dataOf(connection.url, spec.fetch(adminApi(connection), query));
      if (format === 'ndjson') return context.write(page.items.map((item) => `${JSON.stringify(item)}\n`).join(''));
      const note = page.next_cursor ? `more: --cursor ${page.next_cursor}` : undefined;
      print({ json: format === 'json', write: context.write }, page, page.items.map(spec.row), spec.columns, note);
    });
}
