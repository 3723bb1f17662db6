import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { ensurePartitionsAhead, listPartitions } from '../../src/db/time-partitions.js';
import { pruneOnce } from '../../src/domain/upkeep/pruning.js';
import { migrateToRelease } from '../support/migrate-to-release.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { queryRows } from '../support/test-database.js';

/** The last migration of the release before partitions: a database made by it is what upgrades. */
const LAST_BEFORE_PARTITIONS = '0014_install_code_approval';
const DAY_MS = 86_400_000;

const startOfUtcDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);

/** Every row of a table as JSON text, in a fixed order. */
const rowsOf = async (db: DatabaseHandle['db'], table: string, order: string) =>
  (
    await queryRows<{ row: string }>(
      db,
      sql.raw(`select row_to_json(x)::text as row from "${table}" x order by ${order}`),
    )
  ).map((r) => r.row);

describe('upgrading a database of the release before partitions', () => {
  let database: DatabaseHandle | undefined;
  let scratch: ScratchDatabase | undefined;
  afterAll(async () => {
    await database?.close();
    await scratch?.drop();
  });

  it('keeps every event and bucket, in place, and the old table is a past partition that retention drops', async () => {
    if (process.env.DATABASE_URL) scratch = await createScratchDatabase(process.env.DATABASE_URL, 'slowdns_upgrade');
    database = await openDatabase({ databaseUrl: scratch?.url, dataDir: 'memory://' });
    const db = database.db;
    await migrateToRelease(db, LAST_BEFORE_PARTITIONS);
    // The last release's rows: events over the last 30 days (now() is the database's clock, as in the migration), the buckets of this hour.
    await db.execute(sql`
      insert into events (type, occurred_at, actor, install_code_id, data, delivered_at)
      select 'install_code.issued', now() - (i || ' hours')::interval, 'browser', 'ic_' || lpad(to_hex(i), 16, '0'),
        jsonb_build_object('n', i), case when i % 2 = 0 then now() end
      from generate_series(0, 720) i`);
    await db.execute(sql`
      insert into rate_limit_buckets (limit_name, subject_hash, bucket_start, count, quota)
      select 'issue-ip-hour', 'subject-' || i, date_trunc('hour', now()), 1, 5 from generate_series(1, 20) i`);
    const eventsBefore = await rowsOf(db, 'events', 'id');
    const bucketsBefore = await rowsOf(db, 'rate_limit_buckets', 'subject_hash');

    await migrateDatabase(db);

    expect(await rowsOf(db, 'events', 'id')).toEqual(eventsBefore);
    expect(await rowsOf(db, 'rate_limit_buckets', 'subject_hash')).toEqual(bucketsBefore);
    const now = new Date();
    const tomorrow = new Date(startOfUtcDay(now).getTime() + DAY_MS);
    for (const table of ['events', 'rate_limit_buckets'] as const)
      expect(await listPartitions(db, table)).toEqual([
        { name: `${table}_before_partitions`, isDefault: false, from: null, to: tomorrow },
        { name: `${table}_default`, isDefault: true, from: null, to: null },
      ]);

    // Ids go on from the last one; a bucket of this hour is counted in its row, not a second one.
    const [written] = await queryRows<{ id: number }>(
      db,
      sql`insert into events (type, occurred_at, actor, data) values ('install_code.issued', now(), 'browser', '{}') returning id`,
    );
    expect(Number(written!.id)).toBe(eventsBefore.length + 1);
    await db.execute(sql`
      insert into rate_limit_buckets (limit_name, subject_hash, bucket_start, count, quota)
      values ('issue-ip-hour', 'subject-1', date_trunc('hour', now()), 1, 5)
      on conflict (limit_name, subject_hash, bucket_start) do update set count = rate_limit_buckets.count + excluded.count`);
    expect(await queryRows(db, sql`select count from rate_limit_buckets where subject_hash = 'subject-1'`)).toEqual([
      { count: 2 },
    ]);

    // The days ahead after it get their partitions; the old table keeps today.
    const created = (await ensurePartitionsAhead(db, now)).created;
    expect(created.filter((name) => name.startsWith('events_'))).toHaveLength(3);

    // Once its last day is past the retention, the old table is dropped whole.
    const pruned = await pruneOnce(db, new Date(tomorrow.getTime() + 91 * DAY_MS));
    expect(pruned).toMatchObject({ events: eventsBefore.length + 1, buckets: 20 });
    expect((await listPartitions(db, 'events')).map((p) => p.name)).not.toContain('events_before_partitions');
  }, 120_000);
});
