import { dirname } from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import { inject } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { readPgliteSeed } from '../../src/db/pglite-seed.js';
import { createScratchDatabase } from './scratch-database.js';

export interface TestDatabase extends DatabaseHandle {
  /** Empties every table: milliseconds, so each test starts clean on the file's one database. */
  reset(): Promise<void>;
  /** For a second app instance on the same database (PostgreSQL only). */
  url: string | undefined;
}

/**
 * One database per test file: an in-memory PGlite by default, or, when DATABASE_URL is set (or
 * `adminUrl` is given), a fresh PostgreSQL database created next to the one it names and dropped at the end.
 * Both start migrated, from what global-setup.ts made once (migrating again finds nothing to do).
 */
export async function openTestDatabase(adminUrl = process.env.DATABASE_URL): Promise<TestDatabase> {
  if (!adminUrl) {
    const handle = await openDatabase({ dataDir: 'memory://', pgliteSeed: await testPgliteSeed() });
    await migrateDatabase(handle.db);
    return withReset(handle, undefined, async () => {});
  }
  const scratch = await createScratchDatabase(adminUrl, 'slowdns_test', inject('templateDatabase'));
  const handle = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
  await migrateDatabase(handle.db);
  return withReset(handle, scratch.url, scratch.drop);
}

let unpackedSeed: Promise<Blob | undefined> | undefined;

/**
 * The migrated PGlite seed global-setup made, for a test that opens an embedded database itself: unpacked
 * once per worker, as the service unpacks it at start (a tarball PGlite loads as it is), where a gzipped
 * one was gunzipped by PGlite at every open: ~0.1 s of CPU of the ~0.7 s an open takes.
 */
export function testPgliteSeed(): Promise<Blob | undefined> {
  const seedFile = inject('pgliteSeedFile');
  unpackedSeed ??= seedFile ? readPgliteSeed(dirname(seedFile)) : Promise.resolve(undefined);
  return unpackedSeed;
}

function withReset(handle: DatabaseHandle, url: string | undefined, dropDatabase: () => Promise<void>): TestDatabase {
  return {
    ...handle,
    url,
    reset: async () => {
      const tables = await tablesToEmpty(handle.db);
      await handle.db.execute(sql.raw(`truncate ${tables.map((name) => `"${name}"`).join(', ')} cascade`));
    },
    close: async () => {
      await handle.close();
      await dropDatabase();
    },
  };
}

/**
 * What `reset` empties: every table of the public schema, read from the catalog at each reset, so a table a
 * migration adds is emptied without being listed anywhere (drizzle's own bookkeeping lives in schema drizzle).
 */
export async function tablesToEmpty(db: DatabaseHandle['db']): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition order by c.relname`,
  );
  return rows.map((row) => row.name);
}

/** Rows of a raw query (both drivers answer `{ rows }`). */
export async function queryRows<T>(db: DatabaseHandle['db'], query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/** Every row of every table as JSON text: for asserting that no secret is stored in plain text. */
export async function dumpAllTables(db: DatabaseHandle['db']): Promise<{ tables: string[]; text: string }> {
  const tables = (
    await queryRows<{ tablename: string }>(db, sql`select tablename from pg_tables where schemaname = 'public'`)
  ).map((r) => r.tablename);
  let text = '';
  for (const table of tables) {
    text += JSON.stringify(await queryRows(db, sql.raw(`select row_to_json(x)::text as row from "${table}" x`)));
  }
  return { tables, text };
}
