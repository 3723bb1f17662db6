import { fileURLToPath } from 'node:url';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { MIGRATION_LOCK } from './advisory-locks.js';
import type { DatabaseHandle } from './client.js';

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Applies the committed SQL migrations in drizzle/. Safe when several instances start at once. */
export async function migrateDatabase(handle: DatabaseHandle): Promise<void> {
  await handle.withAdvisoryLock(MIGRATION_LOCK, async (db) => {
    if (handle.kind === 'pglite') await migratePglite(db as unknown as PgliteDatabase, { migrationsFolder });
    else await migratePostgres(db as unknown as PostgresJsDatabase, { migrationsFolder });
  });
}
