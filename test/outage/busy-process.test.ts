// A process too busy to read the database's answer in time (a freshly started instance taking a burst of
// requests, a long synchronous stretch) must not take the database for gone: the probe's answer that arrived
// while the event loop was blocked counts, though its timer expired meanwhile too. PostgreSQL only (the
// probe's limit is the pool's, src/db/postgres-pool.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { openTestDatabase, type TestDatabase } from '../support/test-database.js';

const onPostgres = Boolean(process.env.DATABASE_URL);

/** Blocks this process's event loop for `ms`, as a burst of synchronous work does. */
function blockFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

describe.skipIf(!onPostgres)('a probe answered while the process was busy', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  const changes: boolean[] = [];

  beforeAll(async () => {
    database = await openTestDatabase();
    handle = await openDatabase({
      databaseUrl: database.url!,
      dataDir: 'unused',
      onAvailabilityChange: (available) => changes.push(available),
    });
  });
  afterAll(async () => {
    await handle?.close();
    await database?.close();
  });

  it('counts the answer that arrived during the block: the database stays available', async () => {
    for (let round = 0; round < 3; round++) {
      const probed = handle.availability.check();
      // Longer than the probe's own limit (750 ms): its timer and the database's answer are both due at once.
      blockFor(1200);
      expect(await probed).toBe(true);
    }
    expect([handle.availability.available, changes]).toEqual([true, []]);
  });
});
