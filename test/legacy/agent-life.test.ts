import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { toIsoOffset } from '../../src/clock.js';
import { servers } from '../../src/db/schema.js';
import { confirmRequest, expectError, releaseRequest } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { dumpAllTables } from '../support/test-database.js';
import { bearer, checkinRequest, registeredServer, report, revokeRequest, statusRequest } from './agent-requests.js';

// Revoke and GET /status have their own files (revoke.test.ts, status.test.ts).
const ADMIN_TOKEN = 'operator-secret-0123456789abcdefghijklmnop';

describe('the life of a server agent', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  const serverRow = async (id: string) => (await t.database.db.select().from(servers).where(eq(servers.id, id)))[0]!;

  it('register → checkins → revoke by the agent → checkin says revoked and records nothing', async () => {
    const server = await registeredServer(t);

    t.clock.advance(60);
    const first = await checkinRequest(t, bearer(server.agentToken));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({
      data: { status: 'active', checkin_interval_seconds: 300 },
      meta: { message: expect.any(String) },
    });
    expect(await serverRow(server.serverId)).toMatchObject({
      status: 'active',
      lastSeenAt: t.clock.now(),
      lastReport: report,
    });

    t.clock.advance(300);
    const upgraded = {
      agent_version: '2026.12.1.1',
      uptime_seconds: 86_700,
      services: [{ name: 'slowdns-server.service', state: 'failed' }],
    };
    expect((await checkinRequest(t, bearer(server.agentToken), upgraded)).status).toBe(200);
    const seenAt = t.clock.now();
    expect(await serverRow(server.serverId)).toMatchObject({
      lastSeenAt: seenAt,
      lastReport: upgraded,
      agentVersion: '2026.12.1.1',
    });

    t.clock.advance(10);
    const revoked = await revokeRequest(t, bearer(server.agentToken));
    expect(revoked.status).toBe(200);
    const revokedAt = t.clock.now();
    expect((await revoked.json()).data).toEqual({
      server_id: server.serverId,
      status: 'revoked',
      revoked_at: toIsoOffset(revokedAt),
    });

    t.clock.advance(300);
    const after = await checkinRequest(t, bearer(server.agentToken), { ...report, uptime_seconds: 1 });
    expect(after.status).toBe(200);
    expect((await after.json()).data).toEqual({ status: 'revoked', checkin_interval_seconds: 300 });
    expect(await serverRow(server.serverId)).toMatchObject({
      status: 'revoked',
      revokedAt,
      lastSeenAt: seenAt,
      lastReport: upgraded,
    });
  });

  it('releasing the activation (a failed install) revokes its server: checkin then answers revoked', async () => {
    const server = await registeredServer(t);
    const kept = await registeredServer(t);
    expect((await confirmRequest(t, kept.activationId, kept.installToken)).status).toBe(200);

    t.clock.advance(30);
    const first = await releaseRequest(t, server.activationId, { address: server.address });
    expect(first.status).toBe(200);
    const releasedAt = t.clock.now();
    expect(await serverRow(server.serverId)).toMatchObject({
      status: 'revoked',
      revokedAt: releasedAt,
      lastSeenAt: null,
    });

    t.clock.advance(60);
    const after = await checkinRequest(t, bearer(server.agentToken));
    expect(after.status).toBe(200);
    expect((await after.json()).data).toEqual({ status: 'revoked', checkin_interval_seconds: 300 });
    expect((await (await statusRequest(t, bearer(server.agentToken))).json()).data.status).toBe('revoked');

    // Idempotent: a second release answers the same and keeps the first revoked_at.
    const again = await releaseRequest(t, server.activationId, { address: server.address });
    expect(again.status).toBe(200);
    expect((await again.json()).data).toEqual((await first.json()).data);
    expect(await serverRow(server.serverId)).toMatchObject({
      status: 'revoked',
      revokedAt: releasedAt,
      lastSeenAt: null,
    });
    // Another activation's server (confirmed, so not releasable) is untouched.
    await expectError(
      await releaseRequest(t, kept.activationId, { address: kept.address }),
      409,
      'activation_confirmed',
    );
    expect(await serverRow(kept.serverId)).toMatchObject({ status: 'active', revokedAt: null });
  });

  it('a server its agent revoked keeps its first revoked_at when the activation is released', async () => {
    const server = await registeredServer(t);
    expect((await revokeRequest(t, bearer(server.agentToken))).status).toBe(200);
    const revokedAt = t.clock.now();
    t.clock.advance(45);
    expect((await releaseRequest(t, server.activationId, { address: server.address })).status).toBe(200);
    expect(await serverRow(server.serverId)).toMatchObject({ status: 'revoked', revokedAt });
  });

  it('missing and wrong agent tokens are 401 agent_token_invalid with a Bearer challenge', async () => {
    const server = await registeredServer(t);
    const attempts: [string, Record<string, string>][] = [
      ['missing', {}],
      ['wrong', bearer('not-the-agent-token-at-all-0123456789abcdef')],
      ['the admin token on checkin', bearer(ADMIN_TOKEN)],
      ['another scheme', { authorization: `Basic ${server.agentToken}` }],
      ['empty bearer', { authorization: 'Bearer ' }],
    ];
    for (const [name, headers] of attempts) {
      const checkin = await checkinRequest(t, headers);
      expect(checkin.headers.get('www-authenticate'), name).toMatch(/^Bearer realm="slowdns-agent"/);
      await expectError(checkin, 401, 'agent_token_invalid');
      // (The admin token on /revoke is an operator request: it needs a server_id, see revoke.test.ts.)
      if (headers.authorization !== `Bearer ${ADMIN_TOKEN}`)
        await expectError(await revokeRequest(t, headers), 401, 'agent_token_invalid');
    }
    // The token is checked before the body: an unauthenticated caller learns nothing about validation.
    await expectError(await checkinRequest(t, {}, { nonsense: true }), 401, 'agent_token_invalid');
    // Not even the body's media type: a caller without a token gets 401, one with a token 415.
    await expectError(
      await t.request('/checkin', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }),
      401,
      'agent_token_invalid',
    );
    await expectError(
      await t.request('/checkin', {
        method: 'POST',
        headers: { 'content-type': 'text/plain', ...bearer(server.agentToken) },
        body: 'x',
      }),
      415,
      'unsupported_media_type',
    );
    await expectError(await statusRequest(t, bearer('wrong-token')), 401, 'agent_token_invalid');
    expect((await serverRow(server.serverId)).status).toBe('active');
  });

  it('bad and oversized checkin bodies are 400 and 413 envelopes and record no check-in', async () => {
    const server = await registeredServer(t);
    const auth = bearer(server.agentToken);
    const bad: unknown[] = [
      {},
      { ...report, uptime_seconds: -1 },
      { ...report, uptime_seconds: 1.5 },
      { ...report, agent_version: 'latest' },
      { ...report, services: [{ name: 'a b', state: 'active' }] },
      { ...report, services: [{ name: 'x.service', state: 'running' }] },
      {
        ...report,
        services: [
          { name: 'x.service', state: 'active' },
          { name: 'x.service', state: 'failed' },
        ],
      },
      { ...report, services: Array.from({ length: 33 }, (_, i) => ({ name: `s${i}.service`, state: 'active' })) },
    ];
    for (const body of bad) await expectError(await checkinRequest(t, auth, body), 400, 'validation_failed');
    await expectError(
      await t.request('/checkin', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: 'not json',
      }),
      400,
      'validation_failed',
    );
    await expectError(await checkinRequest(t, auth, { ...report, notes: 'n'.repeat(9000) }), 413, 'payload_too_large');
    expect((await serverRow(server.serverId)).lastSeenAt).toBeNull();
  });

  it('a checkin with unknown fields is accepted, the fields ignored and not stored', async () => {
    const server = await registeredServer(t);
    const auth = bearer(server.agentToken);
    const res = await checkinRequest(t, auth, { ...report, future_field: { anything: 1 } });
    expect(res.status).toBe(200);
    expect((await serverRow(server.serverId)).lastReport).toEqual(report);
  });

  it('no agent token appears in plain text in any table or log line', async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 2; i++) {
      const server = await registeredServer(t);
      tokens.push(server.agentToken);
      await checkinRequest(t, bearer(server.agentToken));
      await statusRequest(t, bearer(server.agentToken));
      await revokeRequest(t, bearer(server.agentToken));
    }
    await checkinRequest(t, bearer(`${tokens[0]}x`));
    const { tables, text } = await dumpAllTables(t.database.db);
    expect(tables).toContain('servers');
    expect(text).toContain('agent_token_hash');
    const logs = t.logs.join('\n');
    expect(logs).toContain('"route":"/checkin"');
    for (const token of tokens) {
      expect(text).not.toContain(token);
      expect(logs).not.toContain(token);
    }
  });
});
