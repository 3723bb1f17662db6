import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrationsFolder } from '../../src/db/migrations-folder.js';

/**
 * The schema of an earlier release: the committed migrations up to the one tagged `lastTag`, applied and
 * recorded as the migrator (src/db/migrate.ts) applies and records them, so that migrating then applies the rest.
 */
export async function migrateToRelease(db: DatabaseHandle['db'], lastTag: string): Promise<void> {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  const last = journal.entries.find((entry) => entry.tag === lastTag)!;
  await db.execute(sql`create schema if not exists drizzle`);
  await db.execute(
    sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`,
  );
  for (const migration of readMigrationFiles({ migrationsFolder })) {
    if (migration.folderMillis > last.when) continue;
    for (const statement of migration.sql) await db.execute(sql.raw(statement));
    await db.execute(
      sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`,
    );
  }
}
