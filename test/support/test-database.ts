import { dirname } from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import { inject } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { watchAvailability } from '../../src/db/availability.js';
import { openDatabase } from '../../src/db/client.js';
import type { Database, DatabaseHandle } from '../../src/db/database.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { readPgliteSeed } from '../../src/db/pglite-seed.js';
import * as schema from '../../src/db/schema.js';
import { createScratchDatabase } from './scratch-database.js';

export interface TestDatabase extends DatabaseHandle {
  /** Empties every table: milliseconds, so each test starts clean on the file's one database. */
  reset(): Promise<void>;
  /** For a second app instance on the same database (PostgreSQL only). */
  url: string | undefined;
}

/**
 * One database per test file: an in-memory PGlite by default (the worker's, lent to one file at a time:
 * lendPglite), or, when DATABASE_URL is set (or `adminUrl` is given), a fresh PostgreSQL database created
 * next to the one it names and dropped at the end.
 * Both start migrated, from what global-setup.ts made once (migrating again finds nothing to do).
 */
export async function openTestDatabase(adminUrl = process.env.DATABASE_URL): Promise<TestDatabase> {
  if (!adminUrl) return lendPglite();
  const scratch = await createScratchDatabase(adminUrl, 'slowdns_test', inject('templateDatabase'));
  const handle = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
  await migrateDatabase(handle.db);
  return withReset(handle, scratch.url, scratch.drop);
}

/**
 * The worker's PGlite, put back as the seed left it by the last file that used it, for the next one (or
 * being put back: a file that opens meanwhile waits for it). An open costs ~0.35 s of CPU (a WebAssembly
 * instance, the seed's 1,100 files written into its memory file system), and an npm test opened some 125:
 * putting one back costs a few statements.
 */
let spare: Promise<DatabaseHandle | undefined> | undefined;
/** What a fresh PGlite from the seed holds besides rows (shapeOf), read from the worker's first one. */
let seedShape: Promise<string> | undefined;

/**
 * A PGlite for one test file: the worker's spare when there is one, else a fresh one from the seed. The file
 * gets its own drizzle over a guard of the client: once it closes the database, whatever it left running
 * (a timer, a loop) is refused as by a closed PGlite, never let into the next file's rows. Closing puts the
 * database back (restoreSeedState) and keeps it as the spare; one that cannot be put back, or that the file
 * closed itself, is closed, and the next file opens a fresh one.
 */
async function lendPglite(): Promise<TestDatabase> {
  const putBack = spare;
  spare = undefined;
  let handle = await putBack;
  if (!handle) {
    handle = await openDatabase({ dataDir: 'memory://', pgliteSeed: await testPgliteSeed() });
    await migrateDatabase(handle.db);
    seedShape ??= shapeOf(handle.db);
    // A failed first read is tried again by the next fresh database, not kept as every later one's failure.
    await seedShape.catch((error: unknown) => {
      seedShape = undefined;
      throw error;
    });
  }
  const owned = handle;
  const client = (owned.db as unknown as { $client: PGlite }).$client;
  let lent = true;
  const guarded = new Proxy(client, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        lent ? value.apply(target, args) : Promise.reject(new Error('PGlite is closed (its test file closed it)'));
    },
  });
  // Its own watcher, probing through the guard: the database's own would go on probing for the next file.
  const availability = watchAvailability(async () => void (await guarded.query('select 1')));
  const lease: DatabaseHandle = {
    ...owned,
    db: drizzle({ client: guarded, schema }) as unknown as Database,
    availability,
    close: async () => {
      if (!lent) return;
      lent = false;
      availability.close();
      if (spare !== undefined || client.closed) return owned.close().catch(() => {});
      const restored = restoreSeedState(owned).then(async (ok) => {
        if (ok) return owned;
        await owned.close().catch(() => {});
        return undefined;
      });
      spare = restored;
      await restored;
    },
  };
  return withReset(lease, undefined, async () => {});
}

/**
 * Puts a lent PGlite back as a fresh one from the seed would be: the session's state discarded (settings,
 * advisory locks, prepared statements), the day partitions the service made dropped, every table emptied
 * with its sequences restarted and its planner statistics deleted, and a checkpoint (an in-memory
 * database holds its WAL until one). True when what is left has the seed's shape; false when it cannot
 * tell (a transaction left open, a table, column, constraint, function or comment changed).
 */
async function restoreSeedState(handle: DatabaseHandle): Promise<boolean> {
  try {
    await handle.db.execute(sql.raw('discard all'));
    const partitions = await queryRows<{ name: string }>(
      handle.db,
      sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
          join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind in ('r', 'p')
          and right(c.relname, 8) <> '_default'`,
    );
    if (partitions.length > 0)
      await handle.db.execute(sql.raw(`drop table ${partitions.map((p) => `"${p.name}"`).join(', ')}`));
    const tables = await tablesToEmpty(handle.db);
    await handle.db.execute(
      sql.raw(`truncate ${tables.map((name) => `"${name}"`).join(', ')} restart identity cascade`),
    );
    // `vacuum analyze` (test/support/fleet-rows.ts) leaves statistics a truncate keeps.
    await handle.db.execute(
      sql`delete from pg_statistic where starelid in (select oid from pg_class where relnamespace = 'public'::regnamespace)`,
    );
    await handle.db.execute(sql.raw('checkpoint'));
    return (await shapeOf(handle.db)) === (await seedShape);
  } catch {
    return false;
  }
}

/**
 * What a database holds besides rows, as one text: its relations with their columns, options and rights,
 * constraints, triggers, functions (their source), comments, applied migrations and roles.
 */
async function shapeOf(db: Database): Promise<string> {
  const [row] = await queryRows<{ shape: string }>(
    db,
    sql`with own as (
          select c.oid, n.nspname || '.' || c.relname || ':' || c.relkind::text as name, c.reloptions, c.relacl
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname !~ '^pg_(toast_)?temp_')
        select concat_ws(' | ',
          (select string_agg(name || coalesce(reloptions::text, '') || coalesce(relacl::text, ''), ',' order by name) from own),
          (select md5(string_agg(o.name || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || a.attnotnull::text
             || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ',' order by o.name, a.attnum))
             from own o join pg_attribute a on a.attrelid = o.oid and a.attnum > 0 and not a.attisdropped
             left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum),
          (select md5(string_agg(conname || pg_get_constraintdef(oid), ',' order by conname, oid::regclass::text))
             from pg_constraint where connamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)),
          (select string_agg(tgname, ',' order by tgname) from pg_trigger where not tgisinternal),
          (select md5(string_agg(p.proname || p.prosrc, ',' order by p.proname, p.prosrc)) from pg_proc p
             join pg_namespace n on n.oid = p.pronamespace where n.nspname not in ('pg_catalog', 'information_schema')),
          (select md5(string_agg(objoid::text || objsubid::text || description, ',' order by objoid, objsubid))
             from pg_description where objoid >= 16384),
          (select count(*) from drizzle.__drizzle_migrations),
          (select count(*) from pg_roles)) as shape`,
  );
  return row?.shape ?? '';
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
      // DELETE, not TRUNCATE: a test's few rows go in a millisecond or two, where TRUNCATE makes every table
      // new files (80 ms a reset on PostgreSQL, 25 on PGlite, before each of some 1,000 tests). Every table
      // is emptied by one statement, in any order: each foreign key cascades on delete.
      const deletes = tables.map((name, i) => `d${i} as (delete from "${name}")`).join(', ');
      await handle.db.execute(sql.raw(`with ${deletes} select 1`));
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
