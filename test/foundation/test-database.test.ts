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
