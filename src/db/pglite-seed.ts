import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { migrationsFolder } from './migrations-folder.js';
import { pgliteExtensions } from './pglite-extensions.js';
import { pgliteInitDbParams } from './pglite-settings.js';

/**
 * A fresh embedded database would run initdb in a second PGlite instance (seconds, and about twice
 * the memory of a running one) and then every migration. `npm run build` does that once and keeps
 * the result beside the compiled migrations; a fresh DATA_DIR or `memory://` loads it instead. Without
 * one (`npm start`'s own build makes none: scripts/build.mjs), the compiled server's first fresh start makes
 * it (makeAndKeepPgliteSeed); from src/, PGlite runs initdb and the start migrates.
 */
const SEED_FILE = 'pglite-seed.tar.gz';

/** The migrated, empty data directory as a gzipped tarball (PGlite's own dump format). */
export async function createPgliteSeed(folder = migrationsFolder): Promise<Uint8Array<ArrayBuffer>> {
  const client = await PGlite.create('memory://', {
    initDbStartParams: pgliteInitDbParams,
    extensions: await pgliteExtensions(),
  });
  try {
    await migrate(drizzle({ client }), { migrationsFolder: folder });
    // initdb's template databases are copies of an empty database for CREATE DATABASE, which the embedded
    // database never runs: 14 of the seed's 29 MB, unpacked at every fresh start (and held in memory
    // for `memory://`). The service's database is `postgres`.
    for (const template of ['template0', 'template1']) {
      await client.exec(`alter database ${template} is_template false`);
      await client.exec(`drop database ${template}`);
    }
    // Dumped after a checkpoint: a start from the seed finds a clean shutdown point, no WAL to replay.
    await client.exec('checkpoint');
    return new Uint8Array(await (await client.dumpDataDir('gzip')).arrayBuffer());
  } finally {
    await client.close();
  }
}

/**
 * The seed of a fresh start that found none (`npm start`'s build makes none: scripts/build.mjs), made now in the
 * server's own process (after client.ts set V8's Liftoff-only flags: about 0.7 of the CPU, docs/measurements.md) and kept
 * beside the compiled migrations for the next fresh start (`memory://` starts afresh at every restart): written
 * under another name, then renamed, so that two starts at once or a stop midway leave a whole seed or none. A
 * folder that cannot be written (a read-only image) keeps none, and the start goes on. Only where keepsMadeSeed.
 */
export async function makeAndKeepPgliteSeed(folder = migrationsFolder): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = await createPgliteSeed(folder);
  const partial = `${pgliteSeedFile(folder)}.${process.pid}.partial`;
  try {
    await writeFile(partial, bytes);
    await rename(partial, pgliteSeedFile(folder));
  } catch {
    await rm(partial, { force: true }).catch(() => {});
  }
  return bytes;
}

const gunzipped = promisify(gunzip);

/**
 * The seed beside the migrations (the build's, or one a fresh start kept), or undefined (none there yet),
 * unpacked here: node's zlib does it on its thread pool, while the main thread is loading PGlite, where
 * PGlite's own DecompressionStream ran on the main thread through web streams and copied the 30 MB once
 * more to join its chunks.
 */
export async function readPgliteSeed(folder = migrationsFolder): Promise<Blob | undefined> {
  const file = join(folder, SEED_FILE);
  if (!existsSync(file)) return undefined;
  return new Blob([await gunzipped(await readFile(file))], { type: 'application/x-tar' });
}

/** PGlite gunzips a Blob of a gzip type at once (it tries an untyped one as a plain tar first). */
export function seedBlob(bytes: Uint8Array<ArrayBuffer>): Blob {
  return new Blob([bytes], { type: 'application/gzip' });
}

export const pgliteSeedFile = (folder = migrationsFolder) => join(folder, SEED_FILE);
