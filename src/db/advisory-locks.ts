import { sql } from 'drizzle-orm';
import type { Database } from './database.js';

/**
 * Every PostgreSQL advisory lock id of the service, in one place so that no two uses share an id:
 * a shared id makes unrelated work wait for each other (pruning would hold up an instance loading
 * its signing keys). The ids are arbitrary but fixed; instances of different versions must agree.
 *
 * The locks are transaction-scoped (`pg_advisory_xact_lock`): the database releases them at commit or
 * rollback. A session-level lock belongs to a server connection, which a transaction-mode pooler
 * (PgBouncer, RDS Proxy, Supavisor) keeps open after the client leaves: the lock would never be released.
 */

/** Serialises migrations of instances that start together on one PostgreSQL. */
export const MIGRATION_LOCK = 0x51_0d_45_01;
/** Serialises creation of the first signing key by instances that start together. */
export const SIGNING_KEY_LOCK = 0x51_0d_45_02;
/** One instance prunes at a time (taken with pg_try_advisory_xact_lock: the others skip the pass). */
export const PRUNE_LOCK = 0x51_0d_45_03;
/** One instance at a time makes or drops a partition of the tables partitioned by day (db/time-partitions.ts); the others skip. */
export const PARTITION_LOCK = 0x51_0d_45_05;
/** Serialises changes of rate-limit overrides: a new override replaces the one in place for its limit and target. */
export const RATE_LIMIT_OVERRIDE_LOCK = 0x51_0d_45_04;

/** Runs `fn` in one transaction that first waits for the advisory lock `key`; the lock ends with the transaction. */
export function withAdvisoryLock<T>(db: Database, key: number, fn: (tx: Database) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${key}::bigint)`);
    return fn(tx);
  });
}

/** Like withAdvisoryLock, but answers undefined at once when another transaction holds the lock. */
export function tryWithAdvisoryLock<T>(
  db: Database,
  key: number,
  fn: (tx: Database) => Promise<T>,
): Promise<T | undefined> {
  return db.transaction(async (tx) => {
    const result = (await tx.execute(sql`select pg_try_advisory_xact_lock(${key}::bigint) as locked`)) as unknown as {
      rows: { locked: boolean }[];
    };
    const [row] = result.rows;
    return row?.locked ? fn(tx) : undefined;
  });
}
