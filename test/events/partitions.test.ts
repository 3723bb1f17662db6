import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TestClock } from '../support/test-clock.js';
import { openDatabase } from '../../src/db/client.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { events, rateLimitBuckets } from '../../src/db/schema.js';
import {
  dayPartitionName,
  ensureDayPartitions,
  ensurePartitionsAhead,
  listPartitions,
  type PartitionedTable,
} from '../../src/db/time-partitions.js';
import { pruneOnce } from '../../src/domain/upkeep/pruning.js';
import { createLogger } from '../../src/logger.js';
import { prepareDatabase } from '../../src/prepare-database.js';
import { createScratchDatabase } from '../support/scratch-database.js';
import { issueCode } from '../support/install-flow.js';
import { createTestApp, testKeyRing, type TestApp } from '../support/test-app.js';
import { queryRows, testPgliteSeed } from '../support/test-database.js';

const NOW = new Date('2026-11-22T10:00:00Z');
const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.UTC(2026, 10, 22) + offset * DAY_MS);
const dayNames = (table: PartitionedTable, offsets: number[]) => offsets.map((o) => dayPartitionName(table, day(o)));

async function dayPartitions(db: DatabaseHandle['db'], table: PartitionedTable): Promise<string[]> {
  return (await listPartitions(db, table)).filter((p) => !p.isDefault).map((p) => p.name);
}

/** Back to the default partition alone: each test makes the partitions it needs. */
async function dropDayPartitions(db: DatabaseHandle['db']): Promise<void> {
  for (const table of ['events', 'rate_limit_buckets'] as const)
    for (const name of await dayPartitions(db, table)) await db.execute(sql.raw(`drop table "${name}"`));
}

const event = (occurredAt: Date) => ({ type: 'install_code.issued', occurredAt, actor: 'browser' as const, data: {} });

/** Where each event is kept: its partition's name, by time. */
async function placeOfEvents(db: DatabaseHandle['db']): Promise<Record<string, string>> {
  const rows = await queryRows<{ at: string; place: string }>(
    db,
    sql`select to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, tableoid::regclass::text as place from events order by occurred_at`,
  );
  return Object.fromEntries(rows.map((r) => [r.at, r.place]));
}

describe('events and rate-limit buckets partitioned by UTC day', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  beforeEach(async () => {
    await t.reset();
    await dropDayPartitions(t.database.db);
  });
  afterAll(() => t.close());

  it('makes the partitions of today and the next 3 days on both tables, once', async () => {
    const upkeep = await ensurePartitionsAhead(t.database.db, NOW);
    expect(upkeep).toEqual({
      created: [...dayNames('events', [0, 1, 2, 3]), ...dayNames('rate_limit_buckets', [0, 1, 2, 3])],
      deferred: [],
    });
    expect(await dayPartitions(t.database.db, 'events')).toEqual(dayNames('events', [0, 1, 2, 3]));
    expect(await dayPartitions(t.database.db, 'rate_limit_buckets')).toEqual(
      dayNames('rate_limit_buckets', [0, 1, 2, 3]),
    );
    expect(await ensurePartitionsAhead(t.database.db, NOW)).toEqual({ created: [], deferred: [] });
  });

  it('puts a row written at a UTC midnight in the partition of the day it begins', async () => {
    await ensurePartitionsAhead(t.database.db, NOW);
    const db = t.database.db;
    await db
      .insert(events)
      .values([event(new Date('2026-11-22T23:59:59.999Z')), event(new Date('2026-11-23T00:00:00Z'))]);
    expect(await placeOfEvents(db)).toEqual({
      '2026-11-22T23:59:59.999Z': 'events_p20261122',
      '2026-11-23T00:00:00.000Z': 'events_p20261123',
    });
    await db.insert(rateLimitBuckets).values(
      ['2026-11-22T23:00:00Z', '2026-11-23T00:00:00Z'].map((start) => ({
        limitName: 'issue-ip-hour',
        subjectHash: 'subject',
        bucketStart: new Date(start),
        count: 1,
      })),
    );
    const buckets = await queryRows<{ place: string }>(
      db,
      sql`select tableoid::regclass::text as place from rate_limit_buckets order by bucket_start`,
    );
    expect(buckets.map((b) => b.place)).toEqual(['rate_limit_buckets_p20261122', 'rate_limit_buckets_p20261123']);
  });

  it('moves the rows written before their day had a partition into it when it is made', async () => {
    const db = t.database.db;
    await db.insert(events).values([event(new Date('2026-11-27T08:00:00Z')), event(new Date('2026-11-29T08:00:00Z'))]);
    expect(Object.values(await placeOfEvents(db))).toEqual(['events_default', 'events_default']);
    await ensurePartitionsAhead(db, new Date('2026-11-27T00:00:00Z'));
    expect(await placeOfEvents(db)).toEqual({
      '2026-11-27T08:00:00.000Z': 'events_p20261127',
      '2026-11-29T08:00:00.000Z': 'events_p20261129',
    });
  });

  it('pruning drops the partitions of the expired days whole and keeps the day the cutoff falls in', async () => {
    const db = t.database.db;
    // Days -93 … -86, one event at noon on each (the 90 days' cutoff is day -90 at 10:00).
    await ensureDayPartitions(db, { from: day(-93), days: 8 });
    await db
      .insert(events)
      .values([-93, -92, -91, -90, -89, -88, -87, -86].map((o) => event(new Date(day(o).getTime() + DAY_MS / 2))));
    expect(await pruneOnce(db, NOW)).toMatchObject({ events: 3 });
    expect(await dayPartitions(db, 'events')).toEqual(dayNames('events', [-90, -89, -88, -87, -86]));
    expect((await db.select().from(events)).map((e) => e.occurredAt.toISOString()).sort()).toEqual(
      [-90, -89, -88, -87, -86].map((o) => new Date(day(o).getTime() + DAY_MS / 2).toISOString()),
    );
    expect(await pruneOnce(db, NOW)).toMatchObject({ events: 0 });
  });

  it('pruning drops the buckets of days that ended over two days ago', async () => {
    const db = t.database.db;
    await ensurePartitionsAhead(db, day(-3));
    expect(await dayPartitions(db, 'rate_limit_buckets')).toEqual(dayNames('rate_limit_buckets', [-3, -2, -1, 0]));
    await pruneOnce(db, NOW);
    expect(await dayPartitions(db, 'rate_limit_buckets')).toEqual(dayNames('rate_limit_buckets', [-2, -1, 0]));
  });
});

describe('partitions made at start', () => {
  let dir: string | undefined;
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    await scratch?.drop();
  });

  it('start makes the days ahead, and a restart days later makes the new days', async () => {
    dir = await mkdtemp(join(tmpdir(), 'slowdns-partitions-'));
    if (process.env.DATABASE_URL) scratch = await createScratchDatabase(process.env.DATABASE_URL, 'slowdns_partitions');
    const pgliteSeed = await testPgliteSeed();
    const open = () => openDatabase({ databaseUrl: scratch?.url, dataDir: dir!, pgliteSeed });
    const start = async (at: Date) => {
      const database = await open();
      await prepareDatabase(database, {
        keys: await testKeyRing(),
        clock: new TestClock(at),
        logger: createLogger('error', () => {}),
        label: 'test',
        stopping: () => false,
      });
      const names = await dayPartitions(database.db, 'events');
      await database.close();
      return names;
    };
    expect(await start(NOW)).toEqual(dayNames('events', [0, 1, 2, 3]));
    expect(await start(day(10))).toEqual(dayNames('events', [0, 1, 2, 3, 10, 11, 12, 13]));
  }, 120_000);
});

describe.skipIf(!process.env.DATABASE_URL)('partition changes never stall the install steps (PostgreSQL)', () => {
  let t: TestApp;
  let holder: postgres.Sql;
  beforeAll(async () => {
    t = await createTestApp();
    holder = postgres(t.database.url!, { max: 1, prepare: false, onnotice: () => {} });
  });
  beforeEach(async () => {
    await t.reset();
    await dropDayPartitions(t.database.db);
  });
  afterAll(async () => {
    await holder.end();
    await t.close();
  });

  it('a partition not attached in time behind a long transaction waits for the next pass while codes are issued', async () => {
    await holder.begin(async (tx) => {
      // A long transaction whose lock conflicts with ATTACH (not with writes).
      await tx`lock table events in share update exclusive mode`;
      const [upkeep, code] = await Promise.all([ensurePartitionsAhead(t.database.db, NOW), issueCode(t)]);
      expect(upkeep.deferred).toEqual(dayNames('events', [0, 1, 2, 3]));
      expect(code).toMatch(/^SDNS-/);
    });
    expect((await ensurePartitionsAhead(t.database.db, NOW)).created).toEqual(dayNames('events', [0, 1, 2, 3]));
    expect(Object.values(await placeOfEvents(t.database.db))).toEqual(['events_p20261122']);
  });

  it('an expired partition not dropped in time behind a long read is dropped by the next pass while codes are issued', async () => {
    await ensurePartitionsAhead(t.database.db, day(-95));
    await ensurePartitionsAhead(t.database.db, NOW);
    await holder.begin(async (tx) => {
      // A long read of the events (an export): DROP waits for it, and writes would queue behind the DROP.
      await tx`select count(*) from events`;
      const [pruned, code] = await Promise.all([pruneOnce(t.database.db, NOW), issueCode(t)]);
      expect(pruned?.deferred).toEqual(dayNames('events', [-95, -94, -93, -92]));
      expect(code).toMatch(/^SDNS-/);
    });
    expect((await pruneOnce(t.database.db, NOW))?.deferred).toBeUndefined();
    expect(await dayPartitions(t.database.db, 'events')).toEqual(dayNames('events', [0, 1, 2, 3]));
  });
});
