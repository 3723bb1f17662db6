// vitest globalSetup: sums what every test file validated (test/support/validation-setup.ts) and says it
// at the end of the run, per database, in test-artifacts/validated-responses-<database>.txt.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

const databaseUrl = process.env.DATABASE_URL ? new URL(process.env.DATABASE_URL) : undefined;
/** PGlite, or PostgreSQL by host and port (CI runs the suite on PostgreSQL directly and through PgBouncer). */
const database = databaseUrl ? `PostgreSQL at ${databaseUrl.host}` : 'PGlite';
const fileName = `validated-responses-${databaseUrl ? `postgresql-${databaseUrl.port || '5432'}` : 'pglite'}`;
export const VALIDATED_COUNTS_FILE = `test-artifacts/${fileName}.counts`;

export function setup(): () => void {
  rmSync(VALIDATED_COUNTS_FILE, { force: true });
  return () => {
    let counts: number[] = [];
    try {
      counts = readFileSync(VALIDATED_COUNTS_FILE, 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return;
    }
    const total = counts.reduce((a, b) => a + b, 0);
    const line = `${total} responses validated against the OpenAPI document on ${database} (${counts.length} test files)`;
    writeFileSync(`test-artifacts/${fileName}.txt`, `${line}\n`);
    console.log(line);
  };
}
