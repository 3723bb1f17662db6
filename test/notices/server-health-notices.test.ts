import { describe, expect, it } from 'vitest';
import { bearer, checkinRequest, registeredServer, revokeRequest } from '../legacy/agent-requests.js';
import { openSecondInstance, useTestApp } from '../support/test-app.js';
import { noticeEvents, noticePass, serverGauge } from './notice-requests.js';

const HEALTH = ['server.went_stale', 'server.went_dead', 'server.recovered'];

describe('notices: servers gone quiet, and back (DESIGN §28)', () => {
  const t = useTestApp({ SERVER_DEAD_AFTER_SECONDS: '86400' });

  it('server.went_stale is written once, at the 600th second of silence and not before, as the gauge turns stale', async () => {
    const server = await registeredServer(t);
    await noticePass(t);
    t.clock.advance(599);
    await noticePass(t);
    expect(await noticeEvents(t, HEALTH)).toEqual([]);
    expect(await serverGauge(t)).toMatchObject({ active: 1, stale: 0 });

    t.clock.advance(2);
    await noticePass(t);
    await noticePass(t);
    expect(await serverGauge(t)).toMatchObject({ active: 0, stale: 1 });
    expect(await noticeEvents(t, HEALTH)).toEqual([
      {
        type: 'server.went_stale',
        server_id: server.serverId,
        install_code_id: null,
        actor: 'service',
        data: expect.objectContaining({
          hostname: expect.any(String),
          health: 'stale',
          previous_health: 'active',
          last_seen_at: '2026-11-22T10:00:00.000Z',
        }),
      },
    ]);
  });

  it('server.went_dead is written once at SERVER_DEAD_AFTER_SECONDS, as the gauge turns dead', async () => {
    const server = await registeredServer(t);
    t.clock.advance(700);
    await noticePass(t);
    t.clock.advance(86_400 - 700 - 1);
    await noticePass(t);
    expect((await noticeEvents(t, HEALTH)).map((e) => e.type)).toEqual(['server.went_stale']);
    expect(await serverGauge(t)).toMatchObject({ stale: 1, dead: 0 });

    t.clock.advance(2);
    await noticePass(t);
    await noticePass(t);
    expect(await serverGauge(t)).toMatchObject({ stale: 0, dead: 1 });
    const events = await noticeEvents(t, HEALTH);
    expect(events.map((e) => [e.type, e.server_id, e.data.previous_health])).toEqual([
      ['server.went_stale', server.serverId, 'active'],
      ['server.went_dead', server.serverId, 'stale'],
    ]);
  });

  it('server.recovered is written once after a check-in of a quiet server, as the gauge turns active', async () => {
    const server = await registeredServer(t);
    t.clock.advance(3600);
    await noticePass(t);
    expect((await checkinRequest(t, bearer(server.agentToken))).status).toBe(200);
    await noticePass(t);
    await noticePass(t);
    expect(await serverGauge(t)).toMatchObject({ active: 1, stale: 0 });
    const events = await noticeEvents(t, HEALTH);
    expect(events.map((e) => [e.type, e.data.previous_health, e.data.health])).toEqual([
      ['server.went_stale', 'active', 'stale'],
      ['server.recovered', 'stale', 'active'],
    ]);
  });

  it('a revoked server is never told about, however long it stays silent', async () => {
    const server = await registeredServer(t);
    expect((await revokeRequest(t, bearer(server.agentToken))).status).toBe(200);
    t.clock.advance(2 * 86_400);
    await noticePass(t);
    expect(await noticeEvents(t, HEALTH)).toEqual([]);
    expect(await serverGauge(t)).toMatchObject({ revoked: 1, dead: 0 });
  });

  it('silence while the service itself was down is not counted: no went_stale until 600 s after it came back', async () => {
    await registeredServer(t);
    const down = { downtimeAfterMs: 120_000 };
    await noticePass(t, down);
    t.clock.advance(3600); // no pass for an hour: the service was down
    await noticePass(t, down);
    expect(await noticeEvents(t, HEALTH)).toEqual([]);
    for (let second = 60; second < 600; second += 60) {
      t.clock.advance(60);
      await noticePass(t, down);
    }
    expect(await noticeEvents(t, HEALTH)).toEqual([]);
    t.clock.advance(61);
    await noticePass(t, down);
    expect((await noticeEvents(t, HEALTH)).map((e) => e.type)).toEqual(['server.went_stale']);
  });

  it('two instances running the pass at once write each transition once', async () => {
    const servers = await Promise.all([registeredServer(t), registeredServer(t), registeredServer(t)]);
    const second = await openSecondInstance(t);
    try {
      await noticePass(t);
      t.clock.advance(601);
      await Promise.all([noticePass(t), noticePass(t, {}, second.app.database.db), noticePass(t, { batch: 1 })]);
      t.clock.advance(86_400);
      await Promise.all([noticePass(t, { batch: 1 }), noticePass(t, {}, second.app.database.db)]);
    } finally {
      await second.close();
    }
    const events = await noticeEvents(t, HEALTH);
    for (const server of servers)
      expect(events.filter((e) => e.server_id === server.serverId).map((e) => e.type)).toEqual([
        'server.went_stale',
        'server.went_dead',
      ]);
    expect(events).toHaveLength(6);
  });
});
