import type { Database } from './client.js';

interface SessionLike {
  prepareQuery(query: { sql: string; params: unknown[] }, fields: undefined, name: undefined, isResponseInArrayMode: false): { execute(): Promise<unknown> };
}

/**
 * Runs one statement whose text is fixed at module load (no query object is built per request), with
 * its parameters, on the database or on a transaction. Unnamed: node-postgres sends it as the protocol's
 * unnamed statement, parsed, bound and executed in one round trip, so it is safe behind a
 * transaction-mode pooler. Parameters are strings (timestamps as ISO text, JSON as text) or booleans,
 * cast in the SQL, read the same way by node-postgres and PGlite; timestamps come back as PostgreSQL's
 * text (see `timestampOf`).
 */
export async function runStatement<Row>(db: Database, text: string, params: (string | boolean | null)[]): Promise<Row[]> {
  const session = (db as unknown as { session: SessionLike }).session;
  const result = (await session.prepareQuery({ sql: text, params }, undefined, undefined, false).execute()) as { rows: Row[] };
  return result.rows;
}

/** A timestamptz column as the drivers answer it to drizzle's raw queries (`2026-11-22 10:15:00.123+00`). */
export function timestampOf(value: string): Date {
  return new Date(value);
}
