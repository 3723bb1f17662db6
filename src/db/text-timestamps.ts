// Timestamps, dates and intervals (and their arrays) read as PostgreSQL's own text, as drizzle reads
// them: set once on each driver, so a statement run straight on the driver (runStatement) reads them
// the same way with no options of its own. Given per query, as drizzle gives them, PGlite merges them
// into its whole parser table on every query: about 90 µs more per query than set once.
import pg from 'pg';

/** timestamp, timestamptz, interval, date, and the arrays numeric[], timestamp[], timestamptz[], interval[], date[]. */
const TEXT_TYPE_IDS = new Set([1114, 1184, 1186, 1082, 1231, 1115, 1185, 1187, 1182]);

const asText = (value: string) => value;

/**
 * Into a started PGlite's parser table. Not as the `parsers` option of its creation: while starting,
 * PGlite sets its array parsers over any given there.
 */
export function useTextTimestamps(pglite: { parsers: Record<number, unknown> }): void {
  for (const id of TEXT_TYPE_IDS) pglite.parsers[id] = asText;
}

/** For node-postgres's client (and pool) option `types`. */
export const nodePostgresTextTimestamps = {
  getTypeParser: ((id: number, format?: 'text' | 'binary') =>
    TEXT_TYPE_IDS.has(id) ? asText : pg.types.getTypeParser(id, format)) as typeof pg.types.getTypeParser,
};
