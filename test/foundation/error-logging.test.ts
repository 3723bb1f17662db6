import { sql } from 'drizzle-orm';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { errorFields } from '../../src/logger.js';
import { INSTALLER_VERSION, machine } from '../support/install-flow.js';
import { createTestApp, postJson, type TestApp } from '../support/test-app.js';

// A well-formed code: precheck looks it up by its SHA-256, which is then a parameter of the failing query.
const CODE = 'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N';
const PRIVATE_D = 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A';

describe('a failed query is logged without its parameters', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** Precheck while its table is away: the query fails. */
  async function failingPrecheck(): Promise<Response> {
    await t.database.db.execute(sql.raw('alter table install_codes rename to install_codes_moved'));
    try {
      t.logs.length = 0;
      return await t.request(
        '/api/v2/slowdns/install/precheck',
        postJson({ install_code: CODE, ...machine, product: 'slowdns', installer_version: INSTALLER_VERSION }),
      );
    } finally {
      await t.database.db.execute(sql.raw('alter table install_codes_moved rename to install_codes'));
    }
  }

  it('a request whose query fails is 500 internal_error', async () => {
    const res = await failingPrecheck();
    expect(res.status).toBe(500);
    expect((await res.json()).error.code).toBe('internal_error');
  });

  it('a failed query is logged with its SQL and SQLSTATE, not the code or its hash', async () => {
    await failingPrecheck();
    const failure = t.logs.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'unhandled error');
    expect(failure).toMatchObject({
      level: 'error',
      code: '42P01',
      error: expect.stringMatching(
        /^Failed query: (select|with) .*install_codes.*: relation "install_codes" does not exist$/s,
      ),
    });
    expect(failure.stack).toMatch(/^Error: Failed query: (select|with) [\s\S]*\n {4}at /);
    const logs = t.logs.join('\n');
    expect(logs).not.toContain(sha256Hex(CODE));
    expect(logs).not.toContain(CODE);
    expect(logs).not.toContain('params:');
  });
});

describe('errorFields', () => {
  const queryError = () =>
    new DrizzleQueryError(
      'insert into "signing_keys" ("kid", "private_jwk") values ($1, $2)',
      ['kid_1', `{"kty":"OKP","d":"${PRIVATE_D}"}`],
      Object.assign(new Error('duplicate key value violates unique constraint "signing_keys_pkey"'), { code: '23505' }),
    );

  it('keeps the SQL, the cause and its code, and drops the parameters from message and stack', () => {
    const fields = errorFields(queryError());
    expect(fields.error).toBe(
      'Failed query: insert into "signing_keys" ("kid", "private_jwk") values ($1, $2): duplicate key value violates unique constraint "signing_keys_pkey"',
    );
    expect(fields.code).toBe('23505');
    expect(fields.stack).toMatch(
      /^Error: Failed query: insert into "signing_keys" \("kid", "private_jwk"\) values \(\$1, \$2\)\n {4}at /,
    );
    expect(JSON.stringify(fields)).not.toContain(PRIVATE_D);
    expect(JSON.stringify(fields)).not.toContain('params');
  });

  it('leaves out the message of a data exception (SQLSTATE class 22), which quotes the value', () => {
    const cause = Object.assign(new Error(`invalid input syntax for type uuid: "${PRIVATE_D}"`), { code: '22P02' });
    const fields = errorFields(new DrizzleQueryError('select 1 where $1::uuid is null', [PRIVATE_D], cause));
    expect(fields).toMatchObject({ error: 'Failed query: select 1 where $1::uuid is null', code: '22P02' });
    expect(JSON.stringify(fields)).not.toContain(PRIVATE_D);
  });

  it('reports an ordinary error as it is, and a thrown non-error as text', () => {
    const plain = errorFields(Object.assign(new TypeError('x is not a function'), { code: 'ERR_X' }));
    expect(plain).toMatchObject({
      error: 'x is not a function',
      code: 'ERR_X',
      stack: expect.stringMatching(/^TypeError: x is not a function\n {4}at /),
    });
    expect(errorFields('boom')).toEqual({ error: 'boom' });
  });
});
