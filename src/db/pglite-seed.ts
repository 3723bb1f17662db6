import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { migrationsFolder } from './migrations-folder.js';

/**
 * A fresh embedded database would run initdb in a second PGlite instance (seconds, and about twice
 * the memory of a running one) and then every migration. `npm run build` does that once and keeps
 * the result beside the compiled migrations; a fresh DATA_DIR or `memory://` loads it instead.
 */
const SEED_FILE = 'pglite-seed.tar.gz';

/** The migrated, empty data directory as a gzipped tarball (PGlite's own dump format). */
export async function createPgliteSeed(folder = migrationsFolder): Promise<Uint8Array<ArrayBuffer>> {
  const client = await PGlite.create('memory://');
  try {
    await migrate(drizzle({ client }), { migrationsFolder: folder });
    return new Uint8Array(await (await client.dumpDataDir('gzip')).arrayBuffer());
  } finally {
    await client.close();
  }
}

/** The seed the build left beside the migrations, or undefined (running from src/, or never built). */
export async function readPgliteSeed(folder = migrationsFolder): Promise<Blob | undefined> {
  const file = join(folder, SEED_FILE);
  return existsSync(file) ? new Blob([await readFile(file)]) : undefined;
}

export const pgliteSeedFile = (folder = migrationsFolder) => join(folder, SEED_FILE);
