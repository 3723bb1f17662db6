import { desc, sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { bigint, pgSchema, serial, text } from 'drizzle-orm/pg-core';
import { MIGRATION_LOCK, withAdvisoryLock } from './advisory-locks.js';
import type { Database } from './database.js';
import { migrationsFolder } from './migrations-folder.js';

/** drizzle's own record of applied migrations, kept exactly as its migrator keeps it. */
const appliedMigrations = pgSchema('drizzle').table('__drizzle_migrations', {
  id: serial('id').primaryKey(),
  hash: text('hash').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }),
});

/**
 * Applies the committed SQL migrations in drizzle/. Safe when several instances start at once, also
 * behind a transaction-mode pooler: what drizzle's `migrate()` does (same files, same record table),
 * but inside the one transaction that holds the advisory lock. drizzle's own opens a transaction of its
 * own, which a pooler may run on another server connection than the one holding a lock taken before it.
 */
export async function migrateDatabase(db: Database): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder });
  await withAdvisoryLock(db, MIGRATION_LOCK, async (tx) => {
    await tx.execute(sql`create schema if not exists drizzle`);
    await tx.execute(
      sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`,
    );
    const [last] = await tx
      .select({ createdAt: appliedMigrations.createdAt })
      .from(appliedMigrations)
      .orderBy(desc(appliedMigrations.createdAt))
      .limit(1);
    for (const migration of migrations) {
      if (last && Number(last.createdAt) >= migration.folderMillis) continue;
      for (const statement of migration.sql) await tx.execute(sql.raw(statement));
      await tx.insert(appliedMigrations).values({ hash: migration.hash, createdAt: migration.folderMillis });
    }
  });
}
