import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composedStatement, composedStatements, sqlPiece } from '../../src/db/composed-statement.js';
import type { Database } from '../../src/db/database.js';
import { runStatement } from '../../src/db/statement.js';
import { heldUses } from '../../src/domain/install-codes/fleet-uses.js';
import { COUNTED_CTE, COUNTS_COLUMN, type BucketsParam } from '../../src/domain/rate-limits/limiter.js';
import { openTestDatabase, type TestDatabase } from '../support/test-database.js';

const src = fileURLToPath(new URL('../../src', import.meta.url));

/** The modules of src/ that make composed statements: loading them fills the registry. */
function composingModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return composingModules(path);
    return entry.name.endsWith('.ts') && readFileSync(path, 'utf8').includes('composedStatement<') ? [path] : [];
  });
}

/**
 * The statements PostgreSQL refuses to prepare (parse, analyse and plan, with every parameter's type
 * inferred, nothing run), each with the server's reason.
 */
async function unprepared(
  db: Database,
  statements: readonly { readonly text: string }[],
): Promise<{ text: string; error: string }[]> {
  const refused: { text: string; error: string }[] = [];
  for (const { text } of statements) {
    // One connection for both (a pool's next query may take another); a refused PREPARE leaves nothing behind.
    await db
      .transaction(async (tx) => {
        await tx.execute(sql.raw(`prepare composed as ${text}`));
        await tx.execute(sql.raw('deallocate composed'));
      })
      .catch((error: { cause?: { message?: string } }) =>
        refused.push({ text, error: String(error.cause?.message ?? error) }),
      );
  }
  return refused;
}

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

describe('every composed statement of src/ prepares on the database', () => {
  it('finds the statements of every module that composes one, and the database prepares each', async () => {
    const modules = composingModules(src);
    for (const module of modules) await import(pathToFileURL(module).href);
    const calls = modules.reduce(
      (n, module) => n + (readFileSync(module, 'utf8').match(/composedStatement<\w[^>]*>\(\)`/g)?.length ?? 0),
      0,
    );
    const statements = composedStatements();
    // Eight calls today; activate's makes two statements (one per claim).
    expect(calls).toBeGreaterThanOrEqual(8);
    expect(statements.length).toBeGreaterThan(calls);
    expect(await unprepared(database.db, statements)).toEqual([]);
  });

  it('a piece spliced where what it reads from is missing is refused, with the reason', async () => {
    const withoutCounted = composedStatement<Record<string, never>>()`select ${COUNTS_COLUMN}`;
    const unknownAlias = composedStatement<{ now: string }>()`select ${heldUses('codes')} from install_codes c`;
    expect(await unprepared(database.db, [withoutCounted, unknownAlias])).toEqual([
      { text: withoutCounted.text, error: 'relation "counted" does not exist' },
      { text: unknownAlias.text, error: 'missing FROM-clause entry for table "codes"' },
    ]);
  });
});

describe('a piece states its contract in its type', () => {
  it('a piece reading a parameter the statement lacks does not compile, and has no value to run with', () => {
    // @ts-expect-error COUNTED_CTE reads :buckets, which these parameters lack.
    const statement = composedStatement<{ now: string }>()`with ${COUNTED_CTE} select :now::timestamptz as now`;
    expect(() => statement.values({ now: '2026-11-29T06:00:00.000Z' })).toThrow(/:buckets has no value/);
  });

  it('a row without the columns a piece adds, or with another type for them, does not compile', async () => {
    const counts = composedStatement<BucketsParam>()`with ${COUNTED_CTE} select ${COUNTS_COLUMN}`;
    // @ts-expect-error COUNTS_COLUMN answers `counts` as BucketCount[] | null.
    const rows = await runStatement<{ counts: number }, BucketsParam>(database.db, counts, { buckets: '[]' });
    expect(rows).toEqual([{ counts: null }]);
  });

  it("a statement providing the pieces' parameters runs its template with each piece's text in its place", async () => {
    const held = composedStatement<{
      now: string;
      id: string;
    }>()`select ${heldUses('c')} as held from install_codes c where c.id = :id`;
    expect(held.text).toBe(
      "select (select count(*) from activations h where h.install_code_id = c.id and h.status = 'activated'\n      and (h.install_token_expires_at > $1::timestamptz or exists (select 1 from servers s where s.activation_id = h.id and s.status = 'active'))) as held from install_codes c where c.id = $2",
    );
    expect(await runStatement(database.db, held, { now: '2026-11-29T06:00:00.000Z', id: 'ic_none' })).toEqual([]);
  });

  it('a piece whose text reads a parameter it does not declare is refused when it is made', () => {
    expect(() => sqlPiece(['now'], ':now::timestamptz and :then::timestamptz')).toThrow(/reads :now, :then/);
    expect(() => sqlPiece(['now', 'then'], ':now::timestamptz')).toThrow(/reads :now, not what it declares/);
  });

  it('a piece put into a plain string instead of a composed statement throws', () => {
    expect(() => String(COUNTS_COLUMN)).toThrow(/spliced by composedStatement/);
  });
});
