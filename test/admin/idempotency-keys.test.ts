import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { idempotencyKeys, installCodes } from '../../src/db/schema.js';
import { keyedHashes } from '../../src/domain/tokens/keyed-hashes.js';
import { pruneOnce } from '../../src/domain/upkeep/pruning.js';
import { TEST_KEK } from '../support/spawn-service.js';
import { postJson, type TestApp, useTestApp } from '../support/test-app.js';
import { queryRows } from '../support/test-database.js';
import { adminOperations } from './admin-operations.js';
import { ADMIN_TOKEN } from './admin-requests.js';

const root = { authorization: `Bearer ${ADMIN_TOKEN}` };

function createCode(t: TestApp, key: string | undefined, body: Record<string, unknown>, auth = root) {
  return t.request(
    '/api/v2/admin/install-codes',
    postJson(body, { ...auth, ...(key === undefined ? {} : { 'idempotency-key': key }) }),
  );
}

/** A rate-limit override: an admin create whose answer holds no secret. */
const OVERRIDE = {
  subject: 'ip',
  value: '203.0.113.7',
  limit_name: 'issue-ip-hour',
  limit: 20,
  expires_at: '2026-12-01T00:00:00+00:00',
  reason: 'Office NAT (ticket 1234)',
};

const codeCount = async (t: TestApp) => (await t.database.db.select().from(installCodes)).length;
const issuedEvents = async (t: TestApp) =>
  (
    await queryRows<{ n: number }>(
      t.database.db,
      sql`select count(*)::int as n from events where type = 'install_code.issued'`,
    )
  )[0]!.n;
const keyRows = (t: TestApp) => t.database.db.select().from(idempotencyKeys);

describe('Idempotency-Key on the admin API: a retried create makes one object and answers its first answer again', () => {
  const t = useTestApp({ ADMIN_TOKEN, KEY_ENCRYPTION_KEY: TEST_KEK });

  it('a repeat answers the same status and body, the same secret, with Idempotent-Replayed: true, and creates nothing', async () => {
    const key = randomUUID();
    const first = await createCode(t, key, { uses: 3, tags: { team: 'edge' } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await first.text();
    const again = await createCode(t, key, { tags: { team: 'edge' }, uses: 3 });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstBody);
    expect(JSON.parse(firstBody).data.install_code).toMatch(/^SDNS-SD-/);
    expect(await codeCount(t)).toBe(1);
    expect(await issuedEvents(t)).toBe(1);
  });

  it('the same key with another body is 422 idempotency_key_mismatch and creates nothing', async () => {
    const key = randomUUID();
    expect((await createCode(t, key, { uses: 3 })).status).toBe(201);
    const other = await createCode(t, key, { uses: 4 });
    expect(other.status).toBe(422);
    expect((await other.json()).error.code).toBe('idempotency_key_mismatch');
    expect(await codeCount(t)).toBe(1);
  });

  it('the same key on another path is 422 idempotency_key_mismatch only in its own scope: another path is another key', async () => {
    const key = randomUUID();
    expect((await createCode(t, key, { uses: 2 })).status).toBe(201);
    const override = await t.request(
      '/api/v2/admin/rate-limit-overrides',
      postJson(OVERRIDE, { ...root, 'idempotency-key': key }),
    );
    expect(override.status).toBe(201);
    expect(override.headers.get('idempotent-replayed')).toBeNull();
  });

  it('20 concurrent requests with one key create exactly one code: the others replay it or answer 409 idempotency_key_in_flight', async () => {
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 20 }, () => createCode(t, key, { uses: 5 })));
    const bodies = await Promise.all(answers.map(async (res) => ({ status: res.status, body: await res.json() })));
    const created = bodies.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body.data.install_code)).size).toBe(1);
    for (const refused of bodies.filter((a) => a.status !== 201)) {
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('idempotency_key_in_flight');
    }
    expect(answers.filter((res) => res.status === 201 && !res.headers.get('idempotent-replayed'))).toHaveLength(1);
    expect(await codeCount(t)).toBe(1);
  });

  it("another operator's identical key is a key of its own: its request makes its own code", async () => {
    const minted = await t.request('/api/v2/admin/tokens', postJson({ name: 'automation', scope: 'write' }, root));
    const { token } = (await minted.json()).data;
    const key = randomUUID();
    const mine = await (await createCode(t, key, { uses: 2 })).json();
    const theirs = await createCode(t, key, { uses: 2 }, { authorization: `Bearer ${token}` });
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect((await theirs.json()).data.install_code).not.toBe(mine.data.install_code);
    expect(await codeCount(t)).toBe(2);
  });

  it('a refused request keeps nothing under its key: the same key may be tried again', async () => {
    const key = randomUUID();
    const unknown = () =>
      t.request('/api/v2/admin/servers/srv_0000000000000000/revoke', {
        method: 'POST',
        headers: { ...root, 'idempotency-key': key },
      });
    expect((await unknown()).status).toBe(404);
    expect(await keyRows(t)).toEqual([]);
    const again = await unknown();
    expect(again.status).toBe(404);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a key shorter than 16 characters is 400 validation_failed naming the header, and nothing is made', async () => {
    const res = await createCode(t, 'short-key', { uses: 2 });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('Idempotency-Key');
    expect(await codeCount(t)).toBe(0);
  });

  it('a key whose answer showed a secret is gone after the pass an hour later, so its retry makes a new code', async () => {
    const key = randomUUID();
    const first = await (await createCode(t, key, { uses: 2 })).json();
    t.clock.advance(59 * 60);
    expect((await pruneOnce(t.database.db, t.clock.now()))?.idempotencyKeys).toBe(0);
    t.clock.advance(60);
    expect((await pruneOnce(t.database.db, t.clock.now()))?.idempotencyKeys).toBe(1);
    expect(await keyRows(t)).toEqual([]);
    const later = await createCode(t, key, { uses: 2 });
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect((await later.json()).data.install_code).not.toBe(first.data.install_code);
  });

  it('a key past its hour is a new key even before the pass deletes it: its retry makes a new code', async () => {
    const key = randomUUID();
    const first = await (await createCode(t, key, { uses: 2 })).json();
    t.clock.advance(60 * 60);
    const later = await createCode(t, key, { uses: 3 });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect((await later.json()).data.install_code).not.toBe(first.data.install_code);
    expect(await keyRows(t)).toHaveLength(1);
  });

  it('a key whose answer holds no secret is kept 24 hours, and gone after the pass once they are over', async () => {
    const key = randomUUID();
    const override = () =>
      t.request('/api/v2/admin/rate-limit-overrides', postJson(OVERRIDE, { ...root, 'idempotency-key': key }));
    expect((await override()).status).toBe(201);
    t.clock.advance(24 * 60 * 60 - 1);
    expect((await pruneOnce(t.database.db, t.clock.now()))?.idempotencyKeys).toBe(0);
    expect((await override()).headers.get('idempotent-replayed')).toBe('true');
    t.clock.advance(1);
    expect((await pruneOnce(t.database.db, t.clock.now()))?.idempotencyKeys).toBe(1);
    expect(await keyRows(t)).toEqual([]);
  });

  it('the table holds no secret in clear: neither the answer nor the key, only a keyed hash and a sealed answer', async () => {
    const key = `retry-${randomUUID()}`;
    const { data } = await (await createCode(t, key, { uses: 2 })).json();
    const token = (
      await (
        await t.request(
          '/api/v2/admin/tokens',
          postJson({ name: 'ci', scope: 'write' }, { ...root, 'idempotency-key': `${key}-token` }),
        )
      ).json()
    ).data.token;
    const hook = (
      await (
        await t.request(
          '/api/v2/admin/webhooks',
          postJson(
            { url: 'https://hooks.example.com/slowdns', events: ['*'] },
            { ...root, 'idempotency-key': `${key}-hook` },
          ),
        )
      ).json()
    ).data.secret;
    const rows = await keyRows(t);
    expect(rows).toHaveLength(3);
    const dump = JSON.stringify(rows);
    for (const secret of [
      data.install_code,
      data.install_code.slice(8).replace(/-/g, ''),
      token,
      hook,
      key,
      ADMIN_TOKEN,
    ])
      expect(dump).not.toContain(secret);
    for (const row of rows) {
      expect(row.keyHash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.sealedAnswer).toMatch(/^v1\./);
    }
  });
});

describe.skipIf(!process.env.DATABASE_URL)(
  'a key held by a request still being answered (PostgreSQL: PGlite has one connection)',
  () => {
    const t = useTestApp({ ADMIN_TOKEN, KEY_ENCRYPTION_KEY: TEST_KEK });

    it('another request with the key waits, then answers 409 idempotency_key_in_flight with Retry-After: 1 until the first is undone', async () => {
      const key = randomUUID();
      const scope = [ADMIN_TOKEN, 'POST', '/api/v2/admin/install-codes', key].join('\n');
      const holder = new pg.Client({ connectionString: t.database.url });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query(
          `insert into idempotency_keys (key_hash, fingerprint, created_at, expires_at) values ($1, 'x', now(), now() + interval '1 day')`,
          [keyedHashes(Buffer.from(TEST_KEK, 'base64url')).idempotencyKey(scope)],
        );
        const waiting = await createCode(t, key, { uses: 2 });
        expect(waiting.status).toBe(409);
        expect(waiting.headers.get('retry-after')).toBe('1');
        expect((await waiting.json()).error.code).toBe('idempotency_key_in_flight');
        await holder.query('rollback');
        expect((await createCode(t, key, { uses: 2 })).status).toBe(201);
        expect(await codeCount(t)).toBe(1);
      } finally {
        await holder.end();
      }
    });
  },
);

describe('every admin POST takes an Idempotency-Key: declared in the document, its change inside the key transaction', () => {
  const t = useTestApp({ ADMIN_TOKEN, KEY_ENCRYPTION_KEY: TEST_KEK });
  const posts = () => adminOperations(t.document).filter((op) => op.method === 'POST');
  const document = () => t.document as unknown as { paths: Record<string, Record<string, any>> };

  it('every admin POST declares the header, Idempotent-Replayed on its 2xx and both refusals a key brings', () => {
    expect(posts().length).toBeGreaterThanOrEqual(12);
    for (const op of posts()) {
      const declared = document().paths[op.template]!.post;
      expect(declared.parameters, op.operationId).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
      const [success] = Object.entries(declared.responses).filter(([status]) => status.startsWith('2'));
      expect(Object.keys((success![1] as any).headers), op.operationId).toContain('Idempotent-Replayed');
      expect(Object.keys(declared.responses['409'].content['application/json'].examples)).toContain(
        'idempotency_key_in_flight',
      );
      expect(Object.keys(declared.responses['422'].content['application/json'].examples)).toContain(
        'idempotency_key_mismatch',
      );
    }
  });

  it('every admin POST answers under a key with its example body: none reaches the database outside the key transaction', async () => {
    for (const op of posts()) {
      const example = document().paths[op.template]!.post.requestBody?.content?.['application/json']?.example;
      const res = await t.request(
        op.path,
        example === undefined
          ? { method: 'POST', headers: { ...root, 'idempotency-key': randomUUID() } }
          : postJson(example, { ...root, 'idempotency-key': randomUUID() }),
      );
      expect(res.status, op.operationId).toBeLessThan(500);
    }
  }, 60_000);
});
