import { describe, expect, it } from 'vitest';
import { bearer, checkinRequest, registeredServer, report, revokeRequest } from '../legacy/agent-requests.js';
import { eventTrail } from '../support/event-trail.js';
import { expectError } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, adminAction, adminList, allPages } from './admin-requests.js';

describe('admin: servers and their health', () => {
  const t = useTestApp({ ADMIN_TOKEN, SERVER_DEAD_AFTER_SECONDS: '3600' });

  const health = async (serverId: string) =>
    (await adminList(t, 'servers')).items.find((s) => s.server_id === serverId)!.health as string;
  const withHealth = async (status: string) =>
    (await adminList(t, 'servers', { status })).items.map((s) => s.server_id);

  it('health follows check-ins on a fixed clock: active, stale after 2 missed intervals, dead after SERVER_DEAD_AFTER_SECONDS, active again, revoked', async () => {
    const server = await registeredServer(t);
    expect(await health(server.serverId)).toBe('active'); // never checked in: counted from its registration
    t.clock.advance(600);
    expect(await health(server.serverId)).toBe('active'); // exactly two intervals
    t.clock.advance(1);
    expect(await health(server.serverId)).toBe('stale');
    expect(await withHealth('stale')).toEqual([server.serverId]);
    expect(await withHealth('active')).toEqual([]);
    t.clock.advance(3000); // 3601 s since registration
    expect(await health(server.serverId)).toBe('dead');
    expect(await withHealth('dead')).toEqual([server.serverId]);
    expect(await withHealth('stale')).toEqual([]);

    expect((await checkinRequest(t, bearer(server.agentToken))).status).toBe(200);
    expect(await health(server.serverId)).toBe('active');
    expect(await withHealth('active')).toEqual([server.serverId]);
    const item = (await adminList(t, 'servers')).items[0]!;
    expect(item).toEqual({
      server_id: server.serverId,
      activation_id: server.activationId,
      status: 'active',
      health: 'active',
      hostname: 'vpn1.example.net',
      public_ip: '203.0.113.7',
      machine_id: expect.any(String),
      ssh_fingerprint: expect.stringMatching(/^SHA256:/),
      agent_version: report.agent_version,
      registered_at: '2026-11-22T10:00:00+00:00',
      last_seen_at: '2026-11-22T11:00:01+00:00',
      revoked_at: null,
      last_report: report,
      agent_copy_suspected: false,
      checkin_addresses: ['203.0.113.10'],
      tags: {},
    });

    expect((await revokeRequest(t, bearer(server.agentToken))).status).toBe(200);
    expect(await health(server.serverId)).toBe('revoked');
    expect(await withHealth('revoked')).toEqual([server.serverId]);
    expect(await withHealth('active')).toEqual([]);
  });

  it('filters by hostname, machine_id and registration time', async () => {
    const first = await registeredServer(t);
    t.clock.advance(10);
    for (let i = 0; i < 3; i++) await registeredServer(t);
    const [item] = (await adminList(t, 'servers', { until: '2026-11-22T10:00:05+00:00' })).items;
    expect(item!.server_id).toBe(first.serverId);
    expect((await adminList(t, 'servers', { machine_id: item!.machine_id })).items.map((s) => s.server_id)).toEqual([
      first.serverId,
    ]);
    expect((await adminList(t, 'servers', { hostname: 'vpn1.example.net' })).items).toHaveLength(4);
    expect((await adminList(t, 'servers', { since: '2026-11-22T10:00:05+00:00' })).items).toHaveLength(3);
  });

  it('pages without duplicates while servers are added', async () => {
    const before: string[] = [];
    for (let i = 0; i < 4; i++) before.push((await registeredServer(t)).serverId);
    const seen = (await allPages(t, 'servers', { limit: 2 }, async () => void (await registeredServer(t)))).map(
      (s) => s.server_id,
    );
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(before));
  });

  it('revoke by path: the agent learns it, the event names the operator', async () => {
    const server = await registeredServer(t);
    const trail = eventTrail(t);
    await trail.take();
    const res = await adminAction(t, `servers/${server.serverId}/revoke`);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({
      server_id: server.serverId,
      status: 'revoked',
      revoked_at: '2026-11-22T10:00:00+00:00',
    });
    expect(await trail.take()).toEqual([
      expect.objectContaining({
        type: 'server.revoked',
        actor: 'operator',
        serverId: server.serverId,
        activationId: server.activationId,
      }),
    ]);
    expect((await (await checkinRequest(t, bearer(server.agentToken))).json()).data.status).toBe('revoked');
  });

  it('revoking a revoked server again is 200 with the first revoked_at and records nothing', async () => {
    const server = await registeredServer(t);
    expect((await adminAction(t, `servers/${server.serverId}/revoke`)).status).toBe(200);
    const trail = eventTrail(t);
    await trail.take();
    t.clock.advance(60);
    expect((await (await adminAction(t, `servers/${server.serverId}/revoke`)).json()).data.revoked_at).toBe(
      '2026-11-22T10:00:00+00:00',
    );
    expect(await trail.types()).toEqual([]);
  });

  it('revoking an unknown server is 404 server_not_found', async () => {
    await expectError(await adminAction(t, 'servers/srv_0000000000000000/revoke'), 404, 'server_not_found');
  });
});
