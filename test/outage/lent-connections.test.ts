import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { isDatabaseUnavailable } from '../../src/db/database-errors.js';
import { withLibpqSslModes } from '../../src/db/postgres-pool.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { startTcpProxyFor, type TcpProxy } from '../support/tcp-proxy.js';
import { queryRows } from '../support/test-database.js';

// node-postgres's connections, one by one: one lent to a transaction when the database goes, a `begin`
// that fails with its connection, the probe's connection closed while it waits, a connection that
// never gets an answer. A proxy in front of this file's own database cuts or stalls them (the shared
// PostgreSQL itself is never stopped or signalled). Unheard, a lost connection's 'error' event would end
// this test process as it would end the server.
const adminUrl = process.env.DATABASE_URL;
const POOL_MAX = 10;

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The codes along an error's cause chain. */
const codesOf = (error: unknown): unknown[] => {
  const codes: unknown[] = [];
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) codes.push(e.code);
  return codes;
};

describe.skipIf(!adminUrl)('node-postgres connections lost or stalled', () => {
  let scratch: ScratchDatabase;
  let proxy: TcpProxy;
  let database: DatabaseHandle;

  beforeAll(async () => {
    scratch = await createScratchDatabase(adminUrl!, 'slowdns_lent');
    proxy = await startTcpProxyFor(scratch.url);
    database = await openDatabase({ databaseUrl: proxy.urlFor(scratch.url), dataDir: 'unused' });
  });

  afterEach(async () => {
    await proxy.forward();
  });

  afterAll(async () => {
    await database?.close();
    await proxy?.close();
    await scratch?.drop();
  });

  it('a connection lost inside a transaction: the transaction fails as unavailable, then the pool serves again', async () => {
    const error = await failure(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        proxy.drop();
        // The connection's close arrives while no query runs on it: an 'error' event with nobody in a query.
        await sleep(100);
        await tx.execute(sql`select 2`);
      }),
    );
    expect(isDatabaseUnavailable(error)).toBe(true);
    await proxy.forward();
    await expect(queryRows(database.db, sql`select 1 as one`)).resolves.toEqual([{ one: 1 }]);
  });

  it(`${POOL_MAX} transactions whose begin fails with its connection hand every connection back`, {
    timeout: 15_000,
  }, async () => {
    // Every connection of the pool open and idle, then each lent to a transaction whose begin gets no answer.
    await Promise.all(Array.from({ length: POOL_MAX }, () => database.db.execute(sql`select pg_sleep(0.05)`)));
    proxy.stall();
    const begun = Array.from({ length: POOL_MAX }, () =>
      failure(database.db.transaction(async (tx) => void (await tx.execute(sql`select 1`)))),
    );
    await sleep(200);
    proxy.drop();
    for (const error of await Promise.all(begun)) expect(isDatabaseUnavailable(error)).toBe(true);
    await proxy.forward();
    // A pool whose ten connections were never handed back would wait here for ever.
    await expect(database.db.transaction(async (tx) => queryRows(tx, sql`select 1 as one`))).resolves.toEqual([
      { one: 1 },
    ]);
  });

  it("the probe's connection closed while it waits: the next probe opens another and says available", async () => {
    expect(await database.availability.check()).toBe(true);
    proxy.drop();
    await proxy.forward();
    await sleep(100);
    expect(await database.availability.check()).toBe(true);
  });

  it('a probe whose new connection is still opening when its time is up leaves no connection behind', {
    timeout: 15_000,
  }, async () => {
    const own = await openDatabase({ databaseUrl: proxy.urlFor(scratch.url), dataDir: 'unused' });
    // The probe's connection closed, then every new connection held unanswered: the next probe times out connecting.
    proxy.drop();
    await sleep(100);
    proxy.stall();
    expect(await own.availability.check()).toBe(false);
    // Answered after all: a connection nobody holds any more would open now and stay open.
    await proxy.forward();
    await sleep(500);
    await own.close();
    await sleep(200);
    expect(proxy.open).toBe(0);
  });

  it('a new connection that gets no answer fails in 2 s as unavailable (CONNECT_TIMEOUT), not as a bug', {
    timeout: 10_000,
  }, async () => {
    // The pool's open connections closed and noticed first, so that the query needs a new one.
    proxy.drop();
    await sleep(100);
    proxy.stall();
    const error = await failure(database.db.execute(sql`select 1`));
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(codesOf(error)).toContain('CONNECT_TIMEOUT');
  });
});

describe('sslmode in DATABASE_URL means what it means to libpq', () => {
  const sslOf = (url: string) =>
    (new pg.Client({ connectionString: url }) as unknown as { connectionParameters: { ssl: unknown } })
      .connectionParameters.ssl;

  it('sslmode=require (and no-verify) encrypts without verifying the certificate', () => {
    expect(sslOf(withLibpqSslModes('postgres://u@db.example/app?sslmode=require'))).toEqual({
      rejectUnauthorized: false,
    });
    expect(sslOf(withLibpqSslModes('postgres://u@db.example/app?sslmode=no-verify'))).toEqual({
      rejectUnauthorized: false,
    });
  });

  it('sslmode=verify-full verifies the certificate', () => {
    expect(sslOf(withLibpqSslModes('postgres://u@db.example/app?sslmode=verify-full'))).toEqual({});
  });

  it('a URL without sslmode, or that opts out of libpq compatibility, is left untouched', () => {
    expect(withLibpqSslModes('postgres://u@db.example/app')).toBe('postgres://u@db.example/app');
    expect(withLibpqSslModes('postgres://u@db.example/app?sslmode=disable&uselibpqcompat=false')).toBe(
      'postgres://u@db.example/app?sslmode=disable&uselibpqcompat=false',
    );
  });
});
