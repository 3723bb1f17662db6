import { Column, is } from 'drizzle-orm';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import type { Database } from './database.js';
import type { NamedStatement, StatementParam } from './named-statement.js';

/** What drizzle's session holds: the pool or PGlite, or a transaction's connection. Both answer `{ rows }`. */
interface DriverClient {
  query(text: string, params: unknown[], options?: { rowMode: 'array' }): Promise<{ rows: unknown[] }>;
  query(config: { text: string; values: unknown[]; rowMode: 'array' }): Promise<{ rows: unknown[] }>;
  /** PGlite's alone (node-postgres has none): how the two are told apart. */
  exec?: unknown;
}

/**
 * Runs one statement whose text is fixed at module load, with its named parameters, on the database or
 * on a transaction, straight on the driver under drizzle (no query object is built per request). Unnamed:
 * node-postgres sends it as the protocol's unnamed statement, parsed, bound and executed in one round
 * trip, so it is safe behind a transaction-mode pooler. Parameters are read the same way by node-postgres
 * and PGlite; timestamps come back as PostgreSQL's text (text-timestamps.ts, set on both drivers; see
 * `timestampOf`).
 */
export async function runStatement<Row, Params extends Record<string, StatementParam> = Record<string, never>>(
  db: Database,
  statement: NamedStatement<Params, (row: Row) => void>,
  params: Params,
): Promise<Row[]> {
  const values = statement.values(params);
  return (await onDriver(db, statement.text, values, (client) => client.query(statement.text, values))) as Row[];
}

/** A select of drizzle's query builder: its SQL, and the fields it selects (columns, or objects of columns). */
interface SelectQuery<Row> extends PromiseLike<Row[]> {
  toSQL(): { sql: string; params: unknown[] };
  _: { selectedFields: Record<string, unknown> };
}

/**
 * What `await query` answers, for a select of columns (each a table's, or objects of them one level deep,
 * as the admin lists select): the rows read as arrays and made into drizzle's objects by a mapper made
 * once per query, an object of columns left null by its outer join being null as drizzle makes it (its
 * first column null). drizzle's own mapping asks, of every column of every row, what kind of field it is:
 * ~3 µs a row of an export of activations (docs/measurements.md, "NDJSON export").
 */
export async function selectRows<Row>(db: Database, query: SelectQuery<Row>): Promise<Row[]> {
  const { sql: text, params } = query.toSQL();
  const map = rowMapper(query._.selectedFields);
  const rows = await onDriver(db, text, params, (client) =>
    client.exec === undefined
      ? client.query({ text, values: params, rowMode: 'array' })
      : client.query(text, params, { rowMode: 'array' }),
  );
  return (rows as unknown[][]).map(map) as Row[];
}

type ColumnReader = (row: unknown[], at: number) => unknown;

/** Each selected column's value as drizzle's column maps it from the driver (none: kept as the driver read it). */
function columnReader(column: unknown): ColumnReader {
  if (!is(column, Column)) throw new TypeError('selectRows reads columns, and objects of columns, alone');
  if (column.mapFromDriverValue === Column.prototype.mapFromDriverValue) return (row, at) => row[at];
  return (row, at) => {
    const value = row[at];
    return value === null ? null : column.mapFromDriverValue(value);
  };
}

function rowMapper(fields: Record<string, unknown>): (row: unknown[]) => Record<string, unknown> {
  const top: [key: string, read: ColumnReader, at: number][] = [];
  const nested: [key: string, columns: [key: string, read: ColumnReader, at: number][]][] = [];
  let at = 0;
  for (const [key, field] of Object.entries(fields)) {
    if (is(field, Column)) top.push([key, columnReader(field), at++]);
    else {
      const columns = Object.entries(field as Record<string, unknown>).map(
        ([name, column]) => [name, columnReader(column), at++] as [string, ColumnReader, number],
      );
      nested.push([key, columns]);
    }
  }
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const [key, read, i] of top) out[key] = read(row, i);
    for (const [key, columns] of nested) {
      if (row[columns[0]![2]] === null) {
        out[key] = null;
        continue;
      }
      const object: Record<string, unknown> = {};
      for (const [name, read, i] of columns) object[name] = read(row, i);
      out[key] = object;
    }
    return out;
  };
}

/** Runs `text` on the driver's client; a failure raised as drizzle raises one: the log shows its SQL (never its parameters). */
async function onDriver(
  db: Database,
  text: string,
  values: unknown[],
  run: (client: DriverClient) => Promise<{ rows: unknown[] }>,
): Promise<unknown[]> {
  try {
    return (await run(driverClient(db))).rows;
  } catch (error) {
    throw new DrizzleQueryError(text, values, error as Error);
  }
}

/**
 * The driver's client under drizzle: `session.client`, which drizzle does not export as API. Its node-postgres
 * and PGlite sessions (and their transactions) keep the pool, PGlite or the transaction's connection there;
 * test/foundation/run-statement.test.ts fails if a drizzle upgrade moves it.
 */
export function driverClient(db: Database): DriverClient {
  return (db as unknown as { session: { client: DriverClient } }).session.client;
}

/** A timestamptz column as the drivers answer it to drizzle's raw queries (`2026-11-22 10:15:00.123+00`). */
export function timestampOf(value: string): Date {
  return new Date(value);
}
