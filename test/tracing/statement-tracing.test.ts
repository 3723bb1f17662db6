import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { installCodes } from '../../src/db/schema.js';
import { namedStatement } from '../../src/db/named-statement.js';
import { runStatement } from '../../src/db/statement.js';
import type { StatementTracer } from '../../src/db/statement-tracing.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { testPgliteSeed } from '../support/test-database.js';

const adminUrl = process.env.DATABASE_URL;

/**
 * The database as the server opens it while tracing is on, with a tracer that writes down what it is
 * handed: every statement a request can run reaches it, as its SQL text, on either driver.
 */
describe(`statements handed to the tracer (${adminUrl ? 'PostgreSQL' : 'PGlite'})`, () => {
  const traced: string[] = [];
  const tracer: StatementTracer = async (text, run) => {
    traced.push(text);
    return run();
  };
  let handle: DatabaseHandle;
  let scratch: ScratchDatabase | undefined;
  beforeAll(async () => {
    if (adminUrl) scratch = await createScratchDatabase(adminUrl, 'slowdns_tracing', inject('templateDatabase'));
    handle = await openDatabase({
      databaseUrl: scratch?.url,
      dataDir: 'memory://',
      pgliteSeed: await testPgliteSeed(),
      traceStatement: tracer,
    });
  });
  beforeEach(() => void traced.splice(0));
  afterAll(async () => {
    await handle?.close();
    await scratch?.drop();
  });

  it('a fixed statement run on the driver: its text, not its parameters, and its answer unchanged', async () => {
    expect(
      await runStatement<{ v: string }, { v: string }>(handle.db, namedStatement(`select :v::text as v`), {
        v: 'ic_not_in_the_text',
      }),
    ).toEqual([{ v: 'ic_not_in_the_text' }]);
    expect(traced).toEqual(['select $1::text as v']);
  });

  it('a query drizzle builds', async () => {
    expect(await handle.db.select().from(installCodes).where(eq(installCodes.id, 'ic_not_in_the_text'))).toEqual([]);
    expect(traced).toHaveLength(1);
    expect(traced[0]).toMatch(/^select .* from "install_codes" where "install_codes"."id" = \$1$/);
  });

  it('the statements of a transaction (on PostgreSQL its BEGIN and COMMIT too)', async () => {
    await handle.db.transaction(async (tx) => {
      await runStatement(tx, namedStatement('select 2'), {});
      await tx.select().from(installCodes);
    });
    expect(traced.filter((text) => text !== 'begin' && text !== 'commit')).toEqual([
      'select 2',
      expect.stringMatching(/from "install_codes"$/),
    ]);
    if (adminUrl) expect([traced[0], traced.at(-1)]).toEqual(['begin', 'commit']);
  });

  it('a statement that fails still fails, as it would untraced', async () => {
    await expect(runStatement(handle.db, namedStatement('select * from no_such_table'), {})).rejects.toMatchObject({
      cause: { code: '42P01' },
    });
    expect(traced).toEqual(['select * from no_such_table']);
  });
});
