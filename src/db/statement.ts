import { DrizzleQueryError } from 'drizzle-orm/errors';
import type { Database } from './client.js';

/** What drizzle's session holds: the pool or PGlite, or a transaction's connection. Both answer `{ rows }`. */
interface DriverClient {
  query(text: string, params: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * Runs one statement whose text is fixed at module load, with its parameters, on the database or on a
 * transaction, straight on the driver under drizzle (no query object is built per request). Unnamed:
 * node-postgres sends it as the protocol's unnamed statement, parsed, bound and executed in one round
 * trip, so it is safe behind a transaction-mode pooler. Parameters are strings (timestamps as ISO text,
 * JSON as text) or booleans, cast in the SQL, read the same way by node-postgres and PGlite; timestamps
 * come back as PostgreSQL's text (text-timestamps.ts, set on both drivers; see `timestampOf`).
 */
export async function runStatement<Row>(
  db: Database,
  text: string,
  params: (string | boolean | null)[],
): Promise<Row[]> {
  const { client } = (db as unknown as { session: { client: DriverClient } }).session;
  try {
    return (await client.query(text, params)).rows as Row[];
  } catch (error) {
    // As drizzle raises a failed query: the log shows its SQL (never its parameters) and the driver's error.
    throw new DrizzleQueryError(text, params, error as Error);
  }
}

/** A timestamptz column as the drivers answer it to drizzle's raw queries (`2026-11-22 10:15:00.123+00`). */
export function timestampOf(value: string): Date {
  return new Date(value);
}
