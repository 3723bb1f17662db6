import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { createPgliteSeed, seedBlob } from '../../src/db/pglite-seed.js';
import { queryRows, testPgliteSeed } from '../support/test-database.js';

const folder = await mkdtemp(join(tmpdir(), 'slowdns-seed-test-'));
afterAll(() => rm(folder, { recursive: true, force: true }));

/** The seed global-setup made (or one made here, should the file run without it). */
let loadedSeed: Blob;
beforeAll(async () => {
  loadedSeed = (await testPgliteSeed()) ?? seedBlob(await createPgliteSeed());
});
const seed = async () => loadedSeed;

const tableCount = async (db: Parameters<typeof queryRows>[0]) =>
  (await queryRows<{ n: number }>(db, sql`select count(*)::int as n from pg_tables where schemaname = 'public'`))[0]!.n;

describe('the embedded database starts from the build seed', () => {
  it('a fresh DATA_DIR is the migrated seed, written to the folder, and opens again as an existing database', async () => {
    const dataDir = join(folder, 'data');
    const first = await openDatabase({ dataDir, pgliteSeed: await seed() });
    await migrateDatabase(first.db);
    expect(await tableCount(first.db)).toBeGreaterThan(4);
    await first.db.execute(
      sql`insert into signing_keys (kid, private_jwk, created_at) values ('seed-test', '{}', now())`,
    );
    await first.close();
    expect(await readdir(dataDir)).toContain('PG_VERSION');

    // Existing folder: the seed is not loaded again (PGlite refuses to load over a database), the row is still there.
    const second = await openDatabase({ dataDir, pgliteSeed: await seed() });
    expect(await queryRows<{ kid: string }>(second.db, sql`select kid from signing_keys`)).toEqual([
      { kid: 'seed-test' },
    ]);
    await second.close();
  }, 120_000);

  it('memory:// starts migrated from the seed', async () => {
    const handle = await openDatabase({ dataDir: 'memory://', pgliteSeed: await seed() });
    expect(await tableCount(handle.db)).toBeGreaterThan(4);
    await handle.close();
  });
});
