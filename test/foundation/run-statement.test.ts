import { sql } from 'drizzle-orm';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namedStatement } from '../../src/db/named-statement.js';
import { driverClient, runStatement, timestampOf } from '../../src/db/statement.js';
import { openTestDatabase, queryRows, type TestDatabase } from '../support/test-database.js';

// The same row read three ways: straight on the driver (runStatement) outside and inside a
// transaction, and through drizzle, which gives its own type options with every query.
type ReadParams = { echoed: string; flag: boolean };
const READ =
  namedStatement<ReadParams>(`select '2026-11-22T10:15:00.123Z'::timestamptz as at, '2026-11-22'::date as day, '90 seconds'::interval as span,
  array['2026-11-22T10:15:00Z'::timestamptz] as ats, '{"n":1}'::json as data, 7::int as count, :echoed::text as echoed, :flag::boolean as flag`);
const EXPECTED = {
  at: '2026-11-22 10:15:00.123+00',
  day: '2026-11-22',
  span: '00:01:30',
  ats: '{"2026-11-22 10:15:00+00"}',
  data: { n: 1 },
  count: 7,
};

interface Row {
  at: unknown;
  day: unknown;
  span: unknown;
  ats: unknown;
  data: unknown;
  count: unknown;
  echoed: unknown;
  flag: unknown;
}

const DIVIDE = namedStatement<{ by: string }>('select 1 / :by::int');

describe('namedStatement: named parameters compiled once to positional ones', () => {
  it('numbers each name at its first use and reuses that number for the same name', () => {
    const statement = namedStatement<{ a: string; b: string }>('select :a::text, :b, :a');
    expect(statement.text).toBe('select $1::text, $2, $1');
    expect(statement.names).toEqual(['a', 'b']);
    expect(statement.values({ b: 'B', a: 'A' })).toEqual(['A', 'B']);
  });

  it('leaves casts, quoted literals, quoted identifiers and comments as they are', () => {
    const statement = namedStatement<{ at: string }>(
      `select :at::timestamptz, '{"reason":"x"}'::jsonb, 'a :b', "c:d" -- e :f\nfrom t`,
    );
    expect(statement.text).toBe(`select $1::timestamptz, '{"reason":"x"}'::jsonb, 'a :b', "c:d" -- e :f\nfrom t`);
    expect(statement.names).toEqual(['at']);
  });

  it('refuses a positional parameter at compile time and a missing value at run time', () => {
    expect(() => namedStatement('select $1, :a')).toThrow(/positional \$1/);
    expect(() => namedStatement<{ a: string }>('select :a').values({} as { a: string })).toThrow(/:a has no value/);
  });

  it('passes null as a value', () => {
    expect(namedStatement<{ a: string | null }>('select :a').values({ a: null })).toEqual([null]);
  });
});

describe('runStatement: one statement straight on the driver', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.close());

  it('reads timestamps, dates and intervals as PostgreSQL text and the other types parsed, as drizzle does', async () => {
    const [row] = await runStatement<Row, ReadParams>(database.db, READ, { echoed: 'tok', flag: true });
    expect(row).toEqual({ ...EXPECTED, echoed: 'tok', flag: true });
    expect(timestampOf(row!.at as string).toISOString()).toBe('2026-11-22T10:15:00.123Z');

    const [throughDrizzle] = await queryRows<Row>(
      database.db,
      sql`select '2026-11-22T10:15:00.123Z'::timestamptz as at, '2026-11-22'::date as day, '90 seconds'::interval as span, array['2026-11-22T10:15:00Z'::timestamptz] as ats`,
    );
    expect(throughDrizzle).toEqual({ at: row!.at, day: row!.day, span: row!.span, ats: row!.ats });
  });

  it('sends the text and values the statement compiled to, a name used twice as the same $n', async () => {
    const failure = await runStatement(database.db, namedStatement('select :a::int / :b::int, :a::int as again'), {
      a: '6',
      b: '0',
    }).catch((error: unknown) => error);
    expect((failure as DrizzleQueryError).query).toBe('select $1::int / $2::int, $1::int as again');
    expect((failure as DrizzleQueryError).params).toEqual(['6', '0']);
    const quoted = await runStatement<{ a: string; b: string; again: string }, { a: string }>(
      database.db,
      namedStatement(`select :a::text as a, '$1 :b' as b, :a::text as again`),
      { a: 'x' },
    );
    expect(quoted).toEqual([{ a: 'x', b: '$1 :b', again: 'x' }]);
  });

  // runStatement sends on drizzle's private `session.client` (docs/measurements.md, "The speed tricks inside
  // dependencies, each on the bench"): this fails when a drizzle upgrade moves it.
  it("drizzle still keeps the driver's client at session.client, on the database and on a transaction", async () => {
    const client = driverClient(database.db);
    expect(typeof client?.query).toBe('function');
    expect(client).toBe((database.db as unknown as { $client: unknown }).$client);
    await database.db.transaction(async (tx) => {
      const inTransaction = driverClient(tx);
      expect(typeof inTransaction?.query).toBe('function');
      // node-postgres: the pool's connection this transaction holds, not the pool; PGlite: its transaction.
      expect(inTransaction).not.toBe(client);
    });
  });

  it('runs on a transaction and reads the same there', async () => {
    const rows = await database.db.transaction((tx) =>
      runStatement<Row, ReadParams>(tx, READ, { echoed: 'in tx', flag: false }),
    );
    expect(rows[0]).toEqual({ ...EXPECTED, echoed: 'in tx', flag: false });
  });

  it('a failed statement is a DrizzleQueryError with its SQL, its parameters apart and the driver error as cause', async () => {
    const failure = await runStatement(database.db, namedStatement('select * from no_such_table where id = :id'), {
      id: 'secret',
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DrizzleQueryError);
    expect((failure as DrizzleQueryError).query).toBe('select * from no_such_table where id = $1');
    expect((failure as DrizzleQueryError).params).toEqual(['secret']);
    expect((failure as DrizzleQueryError).cause).toMatchObject({ code: '42P01' });
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'on PostgreSQL, a statement the server refused hands its connection back to the pool instead of dropping it',
    async () => {
      const pool = (database.db as unknown as { $client: pg.Pool }).$client;
      await Promise.all(
        Array.from({ length: 3 }, () => runStatement(database.db, namedStatement('select pg_sleep(0.05)'), {})),
      );
      let opened = 0;
      const countOpened = () => void (opened += 1);
      pool.on('connect', countOpened);
      try {
        const connections = pool.totalCount;
        for (let i = 0; i < 20; i++) {
          const refused = await runStatement(database.db, DIVIDE, { by: '0' }).catch((error: unknown) => error);
          expect((refused as DrizzleQueryError).cause).toMatchObject({ code: '22012', severity: 'ERROR' });
        }
        expect(opened).toBe(0);
        expect(pool.totalCount).toBe(connections);
        expect(await runStatement(database.db, namedStatement('select 2 as two'), {})).toEqual([{ two: 2 }]);
      } finally {
        pool.off('connect', countOpened);
      }
    },
  );
});
