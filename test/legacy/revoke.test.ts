import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { servers } from '../../src/db/schema.js';
import { expectError } from '../support/install-flow.js';
import { buildTestApp, useTestApp } from '../support/test-app.js';
import { bearer, checkinRequest, registeredServer, revokeRequest } from './agent-requests.js';

const ADMIN_TOKEN = 'operator-secret-0123456789abcdefghijklmnop';
const isoOffset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

describe('POST /revoke', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  const serverRow = async (id: string) => (await t.database.db.select().from(servers).where(eq(servers.id, id)))[0]!;

  it('revoke is idempotent: a second revoke (agent with {} or operator) answers the same result', async () => {
    const server = await registeredServer(t);
    const first = await (await revokeRequest(t, bearer(server.agentToken), {})).json();
    t.clock.advance(120);
    const again = await revokeRequest(t, bearer(server.agentToken), {});
    expect(again.status).toBe(200);
    expect((await again.json()).data).toEqual(first.data);
    const byOperator = await revokeRequest(t, bearer(ADMIN_TOKEN), { server_id: server.serverId });
    expect(byOperator.status).toBe(200);
    expect((await byOperator.json()).data).toEqual(first.data);
  });

  it('an agent revokes itself with no body, or an empty body labelled JSON', async () => {
    for (const init of [{ method: 'POST' }, { method: 'POST', headers: { 'content-type': 'application/json' } }]) {
      const server = await registeredServer(t);
      const res = await t.request('/revoke', { ...init, headers: { ...init.headers, ...bearer(server.agentToken) } });
      expect(res.status).toBe(200);
      expect((await res.json()).data).toMatchObject({ server_id: server.serverId, status: 'revoked' });
    }
  });

  it('an operator with ADMIN_TOKEN revokes any server, and its checkin then says revoked', async () => {
    const target = await registeredServer(t);
    const bystander = await registeredServer(t);
    const res = await revokeRequest(t, bearer(ADMIN_TOKEN), { server_id: target.serverId });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({
      server_id: target.serverId,
      status: 'revoked',
      revoked_at: expect.stringMatching(isoOffset),
    });
    expect((await (await checkinRequest(t, bearer(target.agentToken))).json()).data.status).toBe('revoked');
    expect((await (await checkinRequest(t, bearer(bystander.agentToken))).json()).data.status).toBe('active');
  });

  it('operator revoke of an unknown server is 404 server_not_found', async () => {
    await expectError(
      await revokeRequest(t, bearer(ADMIN_TOKEN), { server_id: 'srv_0000000000000000' }),
      404,
      'server_not_found',
    );
  });

  it('operator revoke without a well-formed server_id is 400 validation_failed', async () => {
    await expectError(await revokeRequest(t, bearer(ADMIN_TOKEN), {}), 400, 'validation_failed');
    await expectError(await revokeRequest(t, bearer(ADMIN_TOKEN), { server_id: 'nope' }), 400, 'validation_failed');
  });

  it('an agent cannot revoke another server: naming it is an operator request, 401 admin_token_invalid', async () => {
    const agent = await registeredServer(t);
    const other = await registeredServer(t);
    await expectError(
      await revokeRequest(t, bearer(agent.agentToken), { server_id: other.serverId }),
      401,
      'admin_token_invalid',
    );
    expect((await serverRow(other.serverId)).status).toBe('active');
    const own = await revokeRequest(t, bearer(agent.agentToken), { server_id: agent.serverId });
    expect(own.status).toBe(200);
  });

  it('a wrong admin token is 401 admin_token_invalid, and operator revoke is disabled without ADMIN_TOKEN', async () => {
    const server = await registeredServer(t);
    for (const headers of [{}, bearer('x'.repeat(ADMIN_TOKEN.length)), bearer(`${ADMIN_TOKEN}x`)]) {
      const res = await revokeRequest(t, headers, { server_id: server.serverId });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="slowdns-operator"/);
      await expectError(res, 401, 'admin_token_invalid');
    }
    const withoutAdmin = buildTestApp(t.database, t.keys, {}, t.clock);
    expect(withoutAdmin.config.adminToken).toBeUndefined();
    await expectError(
      await revokeRequest(withoutAdmin, bearer(ADMIN_TOKEN), { server_id: server.serverId }),
      401,
      'admin_token_invalid',
    );
    expect((await serverRow(server.serverId)).status).toBe('active');
  });
});
