// Once per `vitest run`, before any test file: what every file's database is cloned from, so that no
// file runs initdb or a migration of its own.
//   PGlite: the migrated, empty data directory the build dumped (src/db/pglite-seed.ts), loaded by each file
//   (and by any test that opens an embedded database of its own, on PostgreSQL runs too).
//   PostgreSQL (DATABASE_URL): a migrated template database; each file's database is `CREATE DATABASE … TEMPLATE` it.
// And the compiled server (dist/, `npm run build`), when missing or stale: the tests that start the real
// process start it as `npm start` does (test/support/spawn-service.ts, clients/shell/test/helpers.bash).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/client.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { pgliteSeedFile } from '../../src/db/pglite-seed.js';
import { createScratchDatabase } from './scratch-database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A file holding the migrated PGlite seed. */
    pgliteSeedFile: string | undefined;
    /** The migrated template database next to DATABASE_URL (unset on PGlite). */
    templateDatabase: string | undefined;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'ignore' });
  // The build's own seed (made from the same migrations): loaded by every file on PGlite, and on
  // PostgreSQL runs too by the tests that open an embedded database of their own.
  project.provide('pgliteSeedFile', pgliteSeedFile(join(root, 'dist', 'drizzle')));

  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    project.provide('templateDatabase', undefined);
    return async () => {};
  }
  const template = await createScratchDatabase(adminUrl, 'slowdns_template');
  const handle = await openDatabase({ databaseUrl: template.url, dataDir: 'unused' });
  await migrateDatabase(handle.db);
  // A template must have no connection while it is copied. Through a pooler (DATABASE_URL at a
  // PgBouncer) its server connections outlive our client: end them on the PostgreSQL side.
  await handle.close();
  const admin = postgres(adminUrl, { max: 1, prepare: false, onnotice: () => {} });
  try {
    await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${new URL(template.url).pathname.slice(1)} and pid <> pg_backend_pid()`;
  } finally {
    await admin.end();
  }
  project.provide('templateDatabase', new URL(template.url).pathname.slice(1));
  return template.drop;
}
