import { DrizzleQueryError } from 'drizzle-orm/errors';
import type { Database } from './database.js';
import type { NamedStatement, StatementParam } from './named-statement.js';

/** What drizzle's session holds: the pool or PGlite, or a transaction's connection. Both answer `{ rows }`. */
interface DriverClient {
  query(text: string, params: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * Runs one statement whose text is fixed at module load, with its named parameters, on the database or
 * on a transaction, straight on the driver under drizzle (no query object is built per request). Unnamed:
 * node-postgres sends it as the protocol's unnamed statement, parsed, bound and executed in one round
 * trip, so it is safe behind a transaction-mode pooler. Parameters are read the same way by node-postgres
 * and PGlite; timestamps come back as PostgreSQL's text (text-timestamps.ts, set on both drivers; see
 * `timestampOf`). A failure is drizzle's DrizzleQueryError (the log shows its SQL, never its parameters).
 */
export async function runStatement<Row, Params extends Record<string, StatementParam> = Record<string, never>>(
  db: Database,
  statement: NamedStatement<Params, (row: Row) => void>,
  params: Params,
): Promise<Row[]> {
  const values = statement.values(params);
  try {
    return (await driverClient(db).query(statement.text, values)).rows as Row[];
  } catch (error) {
    throw new DrizzleQueryError(statement.text, values, error as Error);
  }
}

/**
 * The driver's client under drizzle: `session.client`, which drizzle does not export as API. Kept because it pays:
 * drizzle's `execute` cost the hot steps 12-22 % more CPU in the same run (docs/measurements.md, "The speed tricks
 * inside dependencies, each on the bench"). Its node-postgres
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
