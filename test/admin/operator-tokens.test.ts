import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { operatorTokens } from '../../src/db/schema.js';
import { eventTrail } from '../support/event-trail.js';
import { activatedInstall, expectError, issue, newBrowser } from '../support/install-flow.js';
import { postJson, type TestApp, useTestApp } from '../support/test-app.js';
import { registeredServer } from '../legacy/agent-requests.js';
import { ADMIN_TOKEN } from './admin-requests.js';
import { adminOperations } from './admin-operations.js';

const root = { authorization: `Bearer ${ADMIN_TOKEN}` };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function mint(t: TestApp, body: Record<string, unknown>, headers: Record<string, string> = root) {
  return t.request('/api/v2/admin/tokens', postJson(body, headers));
}

async function minted(
  t: TestApp,
  name: string,
  scope: 'read' | 'write',
  expires_at?: string,
): Promise<{ id: string; token: string }> {
  const res = await mint(t, { name, scope, ...(expires_at ? { expires_at } : {}) });
  expect(res.status).toBe(201);
  const { data } = await res.json();
  return { id: data.operator_token_id, token: data.token };
}

/** The query an operation cannot answer 200 without (the usage of one subject). */
const QUERY: Record<string, string> = { getRateLimitUsage: '?ip=203.0.113.7' };

/** Every admin operation of the served document, called at its example path (with the query it needs). */
const operations = (t: TestApp) =>
  adminOperations(t.document).map((op) => ({ ...op, path: `${op.path}${QUERY[op.operationId] ?? ''}` }));

const RANK = { read: 0, write: 1, root: 2 } as const;

describe('named operator tokens: every admin operation enforces the scope its definition declares', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('every admin operation declares exactly one scope: read for a GET, write or root for an action', () => {
    const ops = operations(t);
    expect(ops.length).toBeGreaterThanOrEqual(14);
    for (const op of ops) {
      expect(['read', 'write', 'root'], op.operationId).toContain(op.scope);
      if (op.method === 'GET') expect(['read', 'root'], op.operationId).toContain(op.scope);
      else expect(['write', 'root'], op.operationId).toContain(op.scope);
      expect(op.path, op.operationId).not.toContain('undefined');
    }
  });

  it('a token is let through exactly where its scope reaches: 403 admin_scope_insufficient beyond it, never 401 or 403 within it', async () => {
    const tokens = {
      read: (await minted(t, 'dashboard', 'read')).token,
      write: (await minted(t, 'support', 'write')).token,
      root: ADMIN_TOKEN,
    };
    for (const op of operations(t)) {
      for (const [scope, token] of Object.entries(tokens) as [keyof typeof RANK, string][]) {
        const init =
          op.method === 'GET' ? { headers: bearer(token) } : { ...postJson({}, bearer(token)), method: op.method };
        const res = await t.request(op.path, init);
        const body = await res.json();
        if (RANK[scope] < RANK[op.scope as keyof typeof RANK]) {
          expect([op.operationId, scope, res.status]).toEqual([op.operationId, scope, 403]);
          expect(body.error.code).toBe('admin_scope_insufficient');
        } else {
          expect([op.operationId, scope, res.status]).not.toContainEqual(401);
          expect([op.operationId, scope, res.status]).not.toContainEqual(403);
          if (op.method === 'GET') expect([200, 404], `${op.operationId} with ${scope}`).toContain(res.status);
        }
      }
    }
  });

  it('an expired or revoked token is 401 admin_token_invalid on every admin operation', async () => {
    const expiring = await minted(t, 'contractor', 'write', '2026-11-22T11:00:00+00:00');
    const revoked = await minted(t, 'leaver', 'write');
    expect((await t.request(`/api/v2/admin/tokens/${revoked.id}`, { method: 'DELETE', headers: root })).status).toBe(
      200,
    );
    t.clock.advance(3600);
    for (const op of operations(t)) {
      for (const token of [expiring.token, revoked.token, `${revoked.token}x`]) {
        const res = await t.request(op.path, { method: op.method, headers: bearer(token) });
        expect([op.operationId, res.status]).toEqual([op.operationId, 401]);
        expect((await res.json()).error.code).toBe('admin_token_invalid');
      }
    }
  });
});

describe('named operator tokens: made, listed and revoked by ADMIN_TOKEN alone', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('the token is shown once, stored only as its hash, and listed with its scope, status and last use', async () => {
    const res = await mint(t, { name: 'grafana', scope: 'read', expires_at: '2027-01-01T00:00:00+00:00' });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toEqual({
      operator_token_id: expect.stringMatching(/^opt_[0-9a-f]{16}$/),
      name: 'grafana',
      scope: 'read',
      status: 'active',
      created_at: '2026-11-22T10:00:00+00:00',
      expires_at: '2027-01-01T00:00:00+00:00',
      last_used_at: null,
      revoked_at: null,
      created_by: 'root',
      token: expect.stringMatching(/^sdo_[A-Za-z0-9_-]{43}$/),
    });
    const [row] = await t.database.db
      .select()
      .from(operatorTokens)
      .where(eq(operatorTokens.id, data.operator_token_id));
    expect(JSON.stringify(row)).not.toContain(data.token);

    expect((await t.request('/api/v2/admin/servers', { headers: bearer(data.token) })).status).toBe(200);
    const listed = await (await t.request('/api/v2/admin/tokens', { headers: root })).json();
    expect(listed.data.items).toEqual(
      [{ ...data, token: undefined, last_used_at: '2026-11-22T10:00:00+00:00' }].map(({ token, ...rest }) => rest),
    );
    expect(JSON.stringify(listed)).not.toContain(data.token);
  });

  it('last use is written at most once a minute per token', async () => {
    const { id, token } = await minted(t, 'poller', 'read');
    const lastUsed = async () =>
      (
        await t.database.db.select().from(operatorTokens).where(eq(operatorTokens.id, id))
      )[0]!.lastUsedAt?.toISOString();
    await t.request('/api/v2/admin/events', { headers: bearer(token) });
    expect(await lastUsed()).toBe('2026-11-22T10:00:00.000Z');
    t.clock.advance(59);
    await t.request('/api/v2/admin/events', { headers: bearer(token) });
    expect(await lastUsed()).toBe('2026-11-22T10:00:00.000Z');
    t.clock.advance(1);
    await t.request('/api/v2/admin/events', { headers: bearer(token) });
    expect(await lastUsed()).toBe('2026-11-22T10:01:00.000Z');
  });

  it('a write token may not make, list or revoke tokens: 403 admin_scope_insufficient', async () => {
    const write = await minted(t, 'support', 'write');
    await expectError(
      await mint(t, { name: 'escalated', scope: 'write' }, bearer(write.token)),
      403,
      'admin_scope_insufficient',
    );
    await expectError(
      await t.request('/api/v2/admin/tokens', { headers: bearer(write.token) }),
      403,
      'admin_scope_insufficient',
    );
    await expectError(
      await t.request(`/api/v2/admin/tokens/${write.id}`, { method: 'DELETE', headers: bearer(write.token) }),
      403,
      'admin_scope_insufficient',
    );
    expect(await t.database.db.select().from(operatorTokens)).toHaveLength(1);
  });

  it.each([
    ['a name with a control character', { name: 'a\u0000b', scope: 'read' }, 'name'],
    ['a name with a newline', { name: 'a\nb', scope: 'read' }, 'name'],
    ['an empty name', { name: '', scope: 'read' }, 'name'],
    ['the name root', { name: 'root', scope: 'write' }, 'name'],
    ['a name that looks like root with a space', { name: 'root ', scope: 'write' }, 'name'],
    ['a name that looks like root in capitals', { name: 'Root', scope: 'write' }, 'name'],
    ['a name that looks like root with a zero-width space', { name: 'ro\u200bot', scope: 'write' }, 'name'],
    ['a name that looks like root in Cyrillic', { name: 'r\u043e\u043et', scope: 'write' }, 'name'],
    ['a name that starts with a dot', { name: '.ops', scope: 'read' }, 'name'],
    ['a name of 65 characters', { name: 'a'.repeat(65), scope: 'read' }, 'name'],
    ['an unknown scope', { name: 'x', scope: 'admin' }, 'scope'],
    ['a past expiry', { name: 'x', scope: 'read', expires_at: '2026-11-22T09:59:59+00:00' }, 'expires_at'],
    ['an expiry that is not a time', { name: 'x', scope: 'read', expires_at: 'tomorrow' }, 'expires_at'],
  ])('%s is 400 validation_failed naming the field, nothing stored', async (_, body, field) => {
    const res = await mint(t, body);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toEqual({ code: 'validation_failed', message: expect.stringContaining(field) });
    expect(await t.database.db.select().from(operatorTokens)).toHaveLength(0);
  });

  it('revoking an unknown token is 404 operator_token_not_found', async () => {
    await expectError(
      await t.request('/api/v2/admin/tokens/opt_0000000000000000', { method: 'DELETE', headers: root }),
      404,
      'operator_token_not_found',
    );
  });

  it('revoking a token twice answers the first revoke', async () => {
    const { id } = await minted(t, 'x', 'read');
    const first = await (await t.request(`/api/v2/admin/tokens/${id}`, { method: 'DELETE', headers: root })).json();
    t.clock.advance(5);
    const second = await (await t.request(`/api/v2/admin/tokens/${id}`, { method: 'DELETE', headers: root })).json();
    expect(second.data).toEqual(first.data);
    expect(second.data).toMatchObject({ status: 'revoked', revoked_at: '2026-11-22T10:00:00+00:00' });
  });
});

describe('making and revoking a token are events naming the operator and the reason, never the token', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('operator_token.created and operator_token.revoked (once) with the token id, name, scope, expiry, operator and reason', async () => {
    const trail = eventTrail(t);
    const made = await mint(t, {
      name: 'dashboard',
      scope: 'read',
      expires_at: '2027-01-01T00:00:00+00:00',
      reason: 'Ticket 7: the wall screen',
    });
    expect(made.status).toBe(201);
    const { data } = await made.json();
    const created = await trail.take();
    expect(created.map((e) => [e.type, e.actor, e.data])).toEqual([
      [
        'operator_token.created',
        'operator',
        {
          operator_token_id: data.operator_token_id,
          name: 'dashboard',
          scope: 'read',
          expires_at: '2027-01-01T00:00:00+00:00',
          operator: 'root',
          reason: 'Ticket 7: the wall screen',
        },
      ],
    ]);
    expect(JSON.stringify(created)).not.toContain(data.token);

    const revoke = (body?: unknown) =>
      t.request(
        `/api/v2/admin/tokens/${data.operator_token_id}`,
        body === undefined ? { method: 'DELETE', headers: root } : { ...postJson(body, root), method: 'DELETE' },
      );
    expect((await revoke({ reason: 'a\u0000b' })).status).toBe(400);
    expect(await trail.take()).toEqual([]);
    expect((await revoke({ reason: 'The screen is gone' })).status).toBe(200);
    expect((await revoke()).status).toBe(200);
    expect((await trail.take()).map((e) => [e.type, e.data])).toEqual([
      [
        'operator_token.revoked',
        {
          operator_token_id: data.operator_token_id,
          name: 'dashboard',
          scope: 'read',
          expires_at: '2027-01-01T00:00:00+00:00',
          operator: 'root',
          reason: 'The screen is gone',
        },
      ],
    ]);
  });
});

describe('operator actions name the operator and keep the reason in their events', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('revoke code and release activation with a named token record its name and the reason', async () => {
    const { token } = await minted(t, 'alice', 'write');
    const trail = eventTrail(t);
    const code = await issue(t, await newBrowser(t));
    const activated = await activatedInstall(t);
    await trail.take();

    expect(
      (
        await t.request(
          `/api/v2/admin/install-codes/${code.id}/revoke`,
          postJson({ reason: 'Ticket 1: leaked' }, bearer(token)),
        )
      ).status,
    ).toBe(200);
    expect((await trail.take()).map((e) => [e.type, e.actor, e.data])).toEqual([
      ['install_code.revoked', 'operator', { operator: 'alice', reason: 'Ticket 1: leaked' }],
    ]);

    expect(
      (
        await t.request(
          `/api/v2/admin/activations/${activated.activationId}/release`,
          postJson({ restore_install_code: false, reason: 'Wrong box' }, bearer(token)),
        )
      ).status,
    ).toBe(200);
    expect(
      (await trail.take()).map((e) => [
        e.type,
        (e.data as Record<string, unknown>).operator,
        (e.data as Record<string, unknown>).reason,
      ]),
    ).toEqual([
      ['activation.released', 'alice', 'Wrong box'],
      ['install_code.revoked', 'alice', 'Wrong box'],
    ]);
  });

  it('an action with ADMIN_TOKEN records the operator root', async () => {
    const server = await registeredServer(t);
    const trail = eventTrail(t);
    await trail.take();
    expect(
      (await t.request(`/api/v2/admin/servers/${server.serverId}/revoke`, { method: 'POST', headers: root })).status,
    ).toBe(200);
    expect((await trail.take()).map((e) => [e.type, e.data])).toEqual([
      // The service's cause and the operator's words apart (DESIGN §23): an operator's reason never hides the cause.
      ['server.revoked', { cause: 'revoked', operator: 'root', reason: null }],
    ]);
  });

  it('a reason with a control character is 400 validation_failed and changes nothing', async () => {
    const code = await issue(t, await newBrowser(t));
    const res = await t.request(
      `/api/v2/admin/install-codes/${code.id}/revoke`,
      postJson({ reason: 'a\u0000b' }, root),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error).toEqual({ code: 'validation_failed', message: expect.stringContaining('reason') });
  });
});

describe('webhook endpoints as a read-scope operator sees them', () => {
  const t = useTestApp({ ADMIN_TOKEN, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });

  it('a read token sees the host of a webhook URL in list and show, never the URL (URLs often carry secrets)', async () => {
    const url = 'http://127.0.0.1:9/hook?token=s3cr3t';
    const created = await t.request('/api/v2/admin/webhooks', postJson({ url, events: ['*'] }, root));
    expect(created.status).toBe(201);
    const id = (await created.json()).data.webhook_id as string;
    const reader = bearer((await minted(t, 'dashboard', 'read')).token);

    const listed = await (await t.request('/api/v2/admin/webhooks', { headers: reader })).json();
    expect(listed.data.items).toEqual([
      expect.objectContaining({ webhook_id: id, url: null, url_host: '127.0.0.1:9' }),
    ]);
    const shown = await t.request(`/api/v2/admin/webhooks/${id}`, { headers: reader });
    expect(shown.status).toBe(200);
    const body = await shown.text();
    expect(JSON.parse(body).data).toMatchObject({ webhook_id: id, url: null, url_host: '127.0.0.1:9' });
    expect(body).not.toContain('s3cr3t');
  });

  it('the webhook URL is shown once, at creation, and to no token afterwards (DESIGN §28)', async () => {
    const url = 'http://127.0.0.1:9/hook?token=s3cr3t';
    const created = await t.request('/api/v2/admin/webhooks', postJson({ url, events: ['*'] }, root));
    expect(created.status).toBe(201);
    const made = (await created.json()).data;
    expect(made.url).toBe(url);
    const writer = bearer((await minted(t, 'alice', 'write')).token);
    const shown = await (await t.request(`/api/v2/admin/webhooks/${made.webhook_id}`, { headers: writer })).json();
    expect(shown.data).toMatchObject({ url: null, url_host: '127.0.0.1:9' });
  });
});
