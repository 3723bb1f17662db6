// Several hosts in DATABASE_URL (DESIGN §20): the service writes to the first that accepts writes, and when
// it loses it, drops its connections and finds another across the list, without a restart. Two TCP proxies
// in front of the test database stand for two nodes. PostgreSQL only (PGlite has no hosts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { namedStatement } from '../../src/db/named-statement.js';
import { runStatement } from '../../src/db/statement.js';
import { startTcpProxyFor, type TcpProxy } from '../support/tcp-proxy.js';
import { openTestDatabase, type TestDatabase } from '../support/test-database.js';

const onPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onPostgres)('a DATABASE_URL with several hosts', () => {
  let database: TestDatabase;
  let first: TcpProxy;
  let second: TcpProxy;
  let handle: DatabaseHandle | undefined;
  const changes: { from: string; to: string }[] = [];

  beforeAll(async () => {
    database = await openTestDatabase();
    [first, second] = await Promise.all([startTcpProxyFor(database.url!), startTcpProxyFor(database.url!)]);
  });
  afterAll(async () => {
    await handle?.close();
    await Promise.all([first?.close(), second?.close()]);
    await database?.close();
  });

  /** The test database's URL with both proxies as its host list, as `pg_autoctl show uri` writes one. */
  const multiHostUrl = () => {
    const one = new URL(first.urlFor(database.url!));
    return `postgres://${one.username}@127.0.0.1:${first.port},127.0.0.1:${second.port}${one.pathname}?target_session_attrs=read-write&sslmode=prefer`;
  };
  const writable = namedStatement(`select 1 as one where not pg_is_in_recovery()`);
  const write = () => runStatement(handle!.db, writable, {});

  it('writes through the first host, follows the second when the first is lost, and says so once', async () => {
    // sslmode=prefer against a server without TLS: plain, as libpq falls back.
    handle = await openDatabase({
      databaseUrl: multiHostUrl(),
      dataDir: 'unused',
      onPrimaryChange: (c) => changes.push(c),
    });
    expect(await write()).toEqual([{ one: 1 }]);
    expect(first.connections).toBeGreaterThan(0);
    const beforeSecond = second.connections;

    await first.refuse();
    // The first failure drops the host; the next probes find the second one (250 ms, then doubling).
    await expect(write()).rejects.toThrow();
    handle.availability.reportFailure();
    const deadline = Date.now() + 3000;
    while (!(await handle.availability.check()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(handle.availability.available).toBe(true);
    expect(await write()).toEqual([{ one: 1 }]);
    expect(second.connections).toBeGreaterThan(beforeSecond);
    expect(changes).toEqual([
      { from: `postgres://127.0.0.1:${first.port}`, to: `postgres://127.0.0.1:${second.port}` },
    ]);
  });

  it('answers unavailable, not a bug, while no host accepts connections, and recovers without a restart', async () => {
    await second.refuse();
    await expect(write()).rejects.toThrow();
    expect(await handle!.availability.check()).toBe(false);
    await first.forward();
    const deadline = Date.now() + 3000;
    while (!(await handle!.availability.check()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await write()).toEqual([{ one: 1 }]);
  });
});
