import { sql } from 'drizzle-orm';
import { PARTITION_LOCK, tryWithAdvisoryLock } from './advisory-locks.js';
import type { Database } from './database.js';

/**
 * The tables range-partitioned by UTC day (DESIGN §21; drizzle/0015_time_partitions.sql), each with the
 * column that places a row. A day of events is ~5.5 M rows at the design scale: small enough to drop in
 * a moment, and ~95 partitions at the default 90 days' retention (a week would leave 13, but retention
 * would keep up to a week too many). Each table also has a default partition (`<table>_default`) for
 * rows no day partition holds yet; they are moved into their day's partition when it is made.
 */
export const PARTITIONED_TABLES = {
  events: 'occurred_at',
  rate_limit_buckets: 'bucket_start',
} as const;

export type PartitionedTable = keyof typeof PARTITIONED_TABLES;

/** Partitions made ahead: today's and the next 3 days'. */
const DAYS_AHEAD = 3;
/**
 * Partition DDL waits this long at most for its lock: ATTACH and DROP queue behind a long transaction
 * on the table (an export), and the install steps' writes would queue behind them. On timeout the
 * change waits for the next pass (55P03).
 */
const PARTITION_LOCK_TIMEOUT = '50ms';

const DAY_MS = 86_400_000;

const startOfUtcDay = (at: Date): Date => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
const addDays = (day: Date, days: number): Date => new Date(day.getTime() + days * DAY_MS);

/** `events_p20261126`: the day partition of `table` holding the UTC day `day` begins. */
export const dayPartitionName = (table: PartitionedTable, day: Date): string =>
  `${table}_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;

/** One partition of a table; `from`/`to` are null for MINVALUE / the default partition. */
export interface Partition {
  name: string;
  isDefault: boolean;
  from: Date | null;
  to: Date | null;
}

/** The partitions of `table` with their bounds, read from the catalog (the bounds as epoch ms, so no text time is parsed). */
export async function listPartitions(db: Database, table: PartitionedTable): Promise<Partition[]> {
  const bound = sql`pg_get_expr(c.relpartbound, c.oid)`;
  const edge = (word: string) =>
    sql`(extract(epoch from ((regexp_match(${bound}, ${`${word} \\('([^']+)'\\)`}))[1])::timestamptz) * 1000)::float8`;
  const result = (await db.execute(sql`
    select c.relname as name, ${bound} = 'DEFAULT' as is_default, ${edge('FROM')} as from_ms, ${edge('TO')} as to_ms
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = ${table}::regclass
    order by 4 nulls last`)) as unknown as {
    rows: { name: string; is_default: boolean; from_ms: number | null; to_ms: number | null }[];
  };
  return result.rows.map((row) => ({
    name: row.name,
    isDefault: row.is_default,
    from: row.from_ms === null ? null : new Date(Number(row.from_ms)),
    to: row.to_ms === null ? null : new Date(Number(row.to_ms)),
  }));
}

/** True when a partition other than the default holds some of [from, to). */
const overlaps = (partitions: Partition[], from: Date, to: Date) =>
  partitions.some(
    (p) => !p.isDefault && (p.from === null || p.from < to) && (p.to === null || p.to.getTime() > from.getTime()),
  );

const isLockTimeout = (error: unknown): boolean => {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (e.code === '55P03') return true;
    e = e.cause as typeof e;
  }
  return false;
};

/**
 * Runs one partition change in its own short transaction under the partition lock (another instance
 * doing the same skips) with the short lock timeout. Answers 'done', 'skipped' (another instance holds
 * the lock) or 'deferred' (a lock was not had in time: the next pass tries again).
 */
async function partitionChange(db: Database, change: (tx: Database) => Promise<void>) {
  try {
    const done = await tryWithAdvisoryLock(db, PARTITION_LOCK, async (tx) => {
      await tx.execute(sql.raw(`set local lock_timeout = '${PARTITION_LOCK_TIMEOUT}'`));
      await change(tx);
      return true;
    });
    return done ? 'done' : 'skipped';
  } catch (error) {
    if (isLockTimeout(error)) return 'deferred';
    throw error;
  }
}

const timestampLiteral = (at: Date) => `'${at.toISOString()}'`;

/**
 * Makes the day partition of `table` for `day` in one transaction: a plain table shaped like the parent,
 * the default partition's rows of that day moved into it, then ATTACH (which takes only a SHARE UPDATE
 * EXCLUSIVE lock on the parent: writes go on; the default partition, kept empty, is locked for the
 * moment of the move).
 */
function createDayPartition(db: Database, table: PartitionedTable, day: Date) {
  const column = PARTITIONED_TABLES[table];
  const name = dayPartitionName(table, day);
  const [from, to] = [timestampLiteral(day), timestampLiteral(addDays(day, 1))];
  return partitionChange(db, async (tx) => {
    await tx.execute(sql.raw(`create table "${name}" (like "${table}" including defaults including constraints)`));
    await tx.execute(
      sql.raw(`with moved as (delete from "${table}_default" where "${column}" >= ${from} and "${column}" < ${to} returning *)
        insert into "${name}" select * from moved`),
    );
    await tx.execute(sql.raw(`alter table "${table}" attach partition "${name}" for values from (${from}) to (${to})`));
  });
}

export interface PartitionUpkeep {
  /** Partitions made. */
  created: string[];
  /** Partitions whose DDL did not get its lock in time: tried again at the next pass. */
  deferred: string[];
}

/**
 * Makes the day partitions of today and the next 3 days (UTC, by `now`) that do not exist yet, on every
 * partitioned table. Run at start and by the periodic pass.
 */
export function ensurePartitionsAhead(db: Database, now: Date): Promise<PartitionUpkeep> {
  return ensureDayPartitions(db, { from: startOfUtcDay(now), days: DAYS_AHEAD + 1 });
}

/**
 * Makes the day partitions of `days` UTC days from the day `from` falls in that do not exist yet, on
 * every partitioned table (the bench makes the past days it fills with it). Days a past partition
 * already holds (the table from before partitioning) are left to it.
 */
export async function ensureDayPartitions(
  db: Database,
  { from, days }: { from: Date; days: number },
): Promise<PartitionUpkeep> {
  const upkeep: PartitionUpkeep = { created: [], deferred: [] };
  for (const table of Object.keys(PARTITIONED_TABLES) as PartitionedTable[]) {
    const partitions = await listPartitions(db, table);
    for (let offset = 0; offset < days; offset++) {
      const day = addDays(startOfUtcDay(from), offset);
      if (overlaps(partitions, day, addDays(day, 1))) continue;
      const outcome = await createDayPartition(db, table, day);
      if (outcome === 'done') upkeep.created.push(dayPartitionName(table, day));
      if (outcome === 'deferred') upkeep.deferred.push(dayPartitionName(table, day));
    }
  }
  return upkeep;
}

/** Drops one partition (its rows with it) in its own short transaction; 'deferred' when its lock was not had in time. */
export function dropPartition(db: Database, name: string) {
  return partitionChange(db, async (tx) => {
    await tx.execute(sql.raw(`drop table if exists "${name}"`));
  });
}
