import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../../src/db/schema.js';
import { openTestDatabase, queryRows, tablesToEmpty, type TestDatabase } from '../support/test-database.js';

/** The tables src/db/schema.ts declares, found by drizzle's own marker rather than listed. */
const schemaTables = Object.values(schema)
  .filter((value) => is(value, PgTable))
  .map((table) => getTableConfig(table as PgTable).name);

describe("the test database's reset", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database.close();
  });

  it('empties every table src/db/schema.ts declares', async () => {
    expect(schemaTables.length).toBeGreaterThanOrEqual(15);
    expect(await tablesToEmpty(database.db)).toEqual(expect.arrayContaining(schemaTables));
  });

  it('empties a table nobody told it about: one created after the database opened', async () => {
    await database.db.execute(sql`create table planted_table (id integer)`);
    await database.db.execute(sql`insert into planted_table values (1), (2)`);
    await database.reset();
    expect(await queryRows(database.db, sql`select count(*)::int as n from planted_table`)).toEqual([{ n: 0 }]);
  });

  it('leaves the record of applied migrations alone', async () => {
    const before = await queryRows(database.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    await database.reset();
    expect(before).not.toEqual([{ n: 0 }]);
    expect(await queryRows(database.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`)).toEqual(
      before,
    );
  });
});

// On PGlite a worker lends its database to one file after another (test/support/test-database.ts): what one
// file leaves must not reach the next.
describe.skipIf(process.env.DATABASE_URL)("a worker's PGlite, lent to one file after another", () => {
  /** Which PGlite a database is: each one's backend started at its own time. */
  const startOf = async (db: TestDatabase['db']) =>
    (await queryRows<{ at: string }>(db, sql`select pg_postmaster_start_time()::text as at`))[0]?.at;

  it('is lent again as the seed left it: no rows, no day partition, sequences from 1', async () => {
    const first = await openTestDatabase();
    const started = await startOf(first.db);
    await first.db.execute(
      sql.raw(`create table events_p20261127 partition of events for values from ('2026-11-27') to ('2026-11-28')`),
    );
    await first.db.execute(
      sql`insert into events (type, occurred_at, actor, data) values ('install_code.issued', '2026-11-27T12:00:00Z', 'service', '{}')`,
    );
    await first.close();

    const next = await openTestDatabase();
    try {
      expect(await startOf(next.db)).toBe(started);
      expect(
        await queryRows(
          next.db,
          sql`select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid where c.relkind = 'r' order by 1`,
        ),
      ).toEqual([{ relname: 'events_default' }, { relname: 'rate_limit_buckets_default' }]);
      expect(await queryRows(next.db, sql`select count(*)::int as n from events`)).toEqual([{ n: 0 }]);
      // The event's id was 1: the next is 1 again, as on a fresh database.
      expect(await queryRows(next.db, sql`select nextval('events_id_seq')::int as n`)).toEqual([{ n: 1 }]);
    } finally {
      await next.close();
    }
  });

  it('refuses the statements of a file that closed it, so nothing it left running reaches the next file', async () => {
    const first = await openTestDatabase();
    await first.close();
    // drizzle's error, caused by the client's refusal.
    await expect(first.db.execute(sql`select 1`)).rejects.toMatchObject({
      cause: { message: expect.stringMatching(/closed/) },
    });
  });

  it.each([
    ['a table made', 'create table planted_elsewhere (id integer)'],
    ['a column added', 'alter table activations add column planted integer'],
    ['a comment written', "comment on table activations is 'planted'"],
  ])('is closed, not lent again, when a file changed its shape (%s)', async (_change, statement) => {
    const first = await openTestDatabase();
    const started = await startOf(first.db);
    await first.db.execute(sql.raw(statement));
    await first.close();

    const next = await openTestDatabase();
    try {
      expect(await startOf(next.db)).not.toBe(started);
      expect(await queryRows(next.db, sql`select to_regclass('planted_elsewhere') as t`)).toEqual([{ t: null }]);
      expect(await queryRows(next.db, sql`select obj_description('activations'::regclass) as comment`)).toEqual([
        { comment: null },
      ]);
    } finally {
      await next.close();
    }
  });
});
