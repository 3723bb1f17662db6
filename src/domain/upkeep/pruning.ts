import { and, eq, inArray, lt, notExists, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import { PRUNE_LOCK, tryWithAdvisoryLock } from '../../db/advisory-locks.js';
import type { Database } from '../../db/database.js';
import { activations, browserSessions, installCodes, identityTokenUses } from '../../db/schema.js';
import {
  dropPartition,
  ensurePartitionsAhead,
  listPartitions,
  PARTITIONED_TABLES,
  type PartitionedTable,
} from '../../db/time-partitions.js';
import { errorFields, type Logger } from '../../logger.js';
import { pruneIdempotencyKeys } from '../idempotency/idempotency-keys.js';
import { pruneConsoleSessions } from '../operators/console-sessions.js';
import { pruneOidcFlows } from '../operators/oidc-flows.js';
import { startPeriodicPass } from './periodic-pass.js';
import { DAY_SECONDS } from '../rate-limits/policies.js';

/** Day buckets end within a day; two days keeps yesterday's counts for anyone looking into an incident. */
const BUCKET_RETENTION_SECONDS = 2 * DAY_SECONDS;
/** A never-used code is kept a week after it expired, so "expired" (410) can still be told from "unknown" (404). */
const UNUSED_CODE_RETENTION_SECONDS = 7 * DAY_SECONDS;
export const PRUNE_INTERVAL_MS = 10 * 60 * 1000;
/** `EVENT_RETENTION_DAYS` by default. */
const DEFAULT_EVENT_RETENTION_DAYS = 90;

/** One instance prunes at a time; the id is kept with every other lock id in db/advisory-locks.ts. */
export { PRUNE_LOCK };

export interface PruneResult {
  buckets: number;
  sessions: number;
  installCodes: number;
  events: number;
  /** Idempotency-Keys whose answers are no longer replayed. */
  idempotencyKeys: number;
  /** Expired partitions not dropped this time (their lock was not had in time): the next pass drops them. */
  deferred?: string[];
}

const before = (now: Date, seconds: number) => new Date(now.getTime() - seconds * 1000);

/** What one table's retention removes: its partitions wholly before the cutoff (with their row counts), and rows one by one elsewhere. */
interface TableRetention {
  /** Rows deleted from the default partition and from a partition the cutoff falls in (the table from before partitioning). */
  deleted: number;
  expired: { name: string; rows: number }[];
}

/**
 * Retention of a table partitioned by day (db/time-partitions.ts): the partitions whose every row is
 * older than `cutoff` are listed (with their rows counted) to be dropped whole; rows older than it are
 * deleted one by one only in the default partition and in the past partition the table from before
 * partitioning became (from the beginning of time). A day partition the cutoff falls in is kept whole
 * until its day has expired: retention removes whole days.
 */
async function tableRetention(tx: Database, table: PartitionedTable, cutoff: Date): Promise<TableRetention> {
  const column = PARTITIONED_TABLES[table];
  const expired = [];
  let deleted = 0;
  for (const partition of await listPartitions(tx, table)) {
    if (!partition.isDefault && partition.to !== null && partition.to <= cutoff) {
      const result = (await tx.execute(
        sql`select count(*)::int as rows from ${sql.identifier(partition.name)}`,
      )) as unknown as { rows: { rows: number }[] };
      expired.push({ name: partition.name, rows: result.rows[0]?.rows ?? 0 });
    } else if (partition.isDefault || partition.from === null) {
      const result = (await tx.execute(
        sql`delete from ${sql.identifier(partition.name)} where ${sql.identifier(column)} < ${cutoff.toISOString()}::timestamptz`,
      )) as unknown as { rowCount?: number | null; affectedRows?: number };
      deleted += Number(result.rowCount ?? result.affectedRows ?? 0);
    }
  }
  return { deleted, expired };
}

/**
 * Deletes expired browser and console sessions (and unfinished sign-ins), Idempotency-Keys past their time, and install
 * codes that expired more than a week ago
 * without ever being activated (issued or revoked); codes an activation refers to stay: they are the
 * history of a server. Rate-limit buckets older than two days and events older than the event
 * retention are found by `tableRetention`.
 */
async function pruneExpired(tx: Database, now: Date, eventRetentionDays: number) {
  const sessions = await tx
    .delete(browserSessions)
    .where(lt(browserSessions.expiresAt, now))
    .returning({ tokenHash: browserSessions.tokenHash });
  const consoleSessionsPruned = (await pruneConsoleSessions(tx, now)) + (await pruneOidcFlows(tx, now));
  const codes = await tx
    .delete(installCodes)
    .where(
      and(
        inArray(installCodes.status, ['issued', 'revoked']),
        lt(installCodes.expiresAt, before(now, UNUSED_CODE_RETENTION_SECONDS)),
        notExists(tx.select({ one: sql`1` }).from(activations).where(eq(activations.installCodeId, installCodes.id))),
      ),
    )
    .returning({ id: installCodes.id });
  // Identity tokens past their `exp` + 60 s (DESIGN §25): no such token verifies any more, so none can be replayed.
  await tx.delete(identityTokenUses).where(lt(identityTokenUses.keepUntil, now));
  return {
    sessions: sessions.length + consoleSessionsPruned,
    installCodes: codes.length,
    idempotencyKeys: await pruneIdempotencyKeys(tx, now),
    buckets: await tableRetention(tx, 'rate_limit_buckets', before(now, BUCKET_RETENTION_SECONDS)),
    events: await tableRetention(tx, 'events', before(now, eventRetentionDays * DAY_SECONDS)),
  };
}

/** Drops the expired partitions, each in its own short transaction; answers the rows dropped and the partitions deferred. */
async function dropExpired(db: Database, retention: TableRetention, deferred: string[]): Promise<number> {
  let rows = retention.deleted;
  for (const partition of retention.expired) {
    if ((await dropPartition(db, partition.name)) === 'done') rows += partition.rows;
    else deferred.push(partition.name);
  }
  return rows;
}

/**
 * One pruning pass: the row deletions under the advisory lock (undefined when another instance is
 * pruning right now), then the expired partitions dropped whole, each in a transaction of its own with
 * a short lock timeout, so that the lock a drop takes on its table is held for a moment only.
 */
export async function pruneOnce(
  db: Database,
  now: Date,
  eventRetentionDays = DEFAULT_EVENT_RETENTION_DAYS,
): Promise<PruneResult | undefined> {
  const pruned = await tryWithAdvisoryLock(db, PRUNE_LOCK, (tx) => pruneExpired(tx, now, eventRetentionDays));
  if (!pruned) return undefined;
  const deferred: string[] = [];
  const result: PruneResult = {
    buckets: await dropExpired(db, pruned.buckets, deferred),
    sessions: pruned.sessions,
    installCodes: pruned.installCodes,
    idempotencyKeys: pruned.idempotencyKeys,
    events: await dropExpired(db, pruned.events, deferred),
  };
  if (deferred.length > 0) result.deferred = deferred;
  return result;
}

export interface PruningSchedule {
  /** Stops the timer and waits for a pass in progress, so the database can close after it. */
  stop(): Promise<void>;
}

/** Prunes every `everyMs` on an unref'd timer: it never keeps the process alive. */
export function startPruning(
  db: Database,
  clock: Clock,
  logger: Logger,
  { everyMs = PRUNE_INTERVAL_MS, eventRetentionDays = DEFAULT_EVENT_RETENTION_DAYS } = {},
): PruningSchedule {
  const pass = async () => {
    try {
      const upkeep = await ensurePartitionsAhead(db, clock.now());
      if (upkeep.created.length > 0 || upkeep.deferred.length > 0) logger.info('partitions made ahead', { ...upkeep });
      const result = await pruneOnce(db, clock.now(), eventRetentionDays);
      if (result) logger.info('pruned', { ...result });
    } catch (err) {
      const { error, code } = errorFields(err);
      logger.warn('pruning failed', { error, code });
    }
  };
  return startPeriodicPass(pass, everyMs);
}
