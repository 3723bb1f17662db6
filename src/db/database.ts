import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { DatabaseAvailability } from './availability.js';
import type * as schema from './schema.js';

/** A drizzle database or transaction; queries take it as their first argument. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** How many connections the pool may open and has open, by state: read by the metrics at each scrape. */
  poolStats(): Promise<PoolStats>;
  /** Whether the database answers; probed on failures and while it is away. */
  availability: DatabaseAvailability;
  close(): Promise<void>;
}

export interface PoolStats {
  max: number;
  /** Open connections by PostgreSQL's state (`active`, `idle`, `idle in transaction`, ...). */
  connections: Record<string, number>;
}
