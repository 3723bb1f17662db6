import { describe, expect, it } from 'vitest';
import { registeredServer } from '../legacy/agent-requests.js';
import { activatedInstall, confirmRequest, expectError, issueCode } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, adminList, allPages } from './admin-requests.js';

describe('admin: events', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('lists events newest first with every field, and filters by type, subject and time', async () => {
    const a = await activatedInstall(t);
    t.clock.advance(30);
    expect((await confirmRequest(t, a.activationId, a.installToken)).status).toBe(200);

    const all = (await adminList(t, 'events')).items;
    expect(all.map((e) => e.type)).toEqual([
      'install_code.consumed',
      'activation.confirmed',
      'activation.created',
      'install_code.activated',
      'install_code.issued',
    ]);
    expect(all[1]).toEqual({
      event_id: expect.any(Number),
      type: 'activation.confirmed',
      occurred_at: '2026-11-22T10:00:30+00:00',
      actor: 'installer',
      install_code_id: expect.stringMatching(/^ic_/),
      activation_id: a.activationId,
      server_id: null,
      request_id: expect.any(String),
      client_key_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      data: {},
      delivered_at: null,
    });
    const ids = all.map((e) => e.event_id as number);
    expect([...ids].sort((x, y) => y - x)).toEqual(ids);

    const types = async (query: Record<string, string>) =>
      (await adminList(t, 'events', query)).items.map((e) => e.type);
    expect(await types({ type: 'activation.created' })).toEqual(['activation.created']);
    expect(await types({ subject_id: a.activationId })).toEqual([
      'install_code.consumed',
      'activation.confirmed',
      'activation.created',
      'install_code.activated',
    ]);
    expect(await types({ subject_id: all[4]!.install_code_id })).toHaveLength(5);
    expect(await types({ since: '2026-11-22T10:00:30+00:00' })).toEqual([
      'install_code.consumed',
      'activation.confirmed',
    ]);
    expect(await types({ until: '2026-11-22T10:00:30+00:00' })).toHaveLength(3);
    await expectError(
      await t.request('/api/v2/admin/events?type=code.stolen', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
      400,
      'validation_failed',
    );
    await expectError(
      await t.request('/api/v2/admin/events?subject_id=x', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
      400,
      'validation_failed',
    );
  });

  it('pages by time then id: every event once, none missed, while events are written between pages', async () => {
    for (let i = 0; i < 4; i++) await issueCode(t);
    await registeredServer(t);
    const before = (await allPages(t, 'events', { limit: 200 })).map((e) => e.event_id);
    expect(before).toHaveLength(8);
    const seen = (await allPages(t, 'events', { limit: 3 }, async () => void (await issueCode(t)))).map(
      (e) => e.event_id,
    );
    expect(seen).toEqual(before);
  });

  it('lists by the time of the change, newest first, across days a month and more apart', async () => {
    const start = t.clock.now().getTime();
    const hoursAgo = [120, 960, 0, 480, 12, 2000];
    for (const hours of hoursAgo) {
      t.clock.set(new Date(start - hours * 3_600_000));
      await issueCode(t);
    }
    t.clock.set(new Date(start));
    const expected = [...hoursAgo]
      .sort((a, b) => a - b)
      .map((hours) => new Date(start - hours * 3_600_000).toISOString());
    const times = (await allPages(t, 'events', { limit: 2 })).map((e) => new Date(e.occurred_at).toISOString());
    expect(times).toEqual(expected);
    expect((await allPages(t, 'events', { limit: 200, since: expected[3]! })).length).toBe(4);
  });
  it('reads every window of a page down past the retention: events older than it, not yet pruned, are listed last', async () => {
    const start = t.clock.now().getTime();
    // A day, a week, a month, then a month at a time down to the 90 days' retention, then all older.
    const hoursAgo = [2, 30, 24 * 8, 24 * 31, 24 * 45, 24 * 62 + 1, 24 * 89, 24 * 120, 24 * 400];
    for (const hours of hoursAgo) {
      t.clock.set(new Date(start - hours * 3_600_000));
      await issueCode(t);
    }
    t.clock.set(new Date(start));
    const at = (hours: number) => new Date(start - hours * 3_600_000).toISOString();
    const times = async (query: Record<string, string | number>) =>
      (await allPages(t, 'events', query)).map((e) => new Date(e.occurred_at).toISOString());
    expect(await times({ limit: 200 })).toEqual(hoursAgo.map(at));
    expect(await times({ limit: 3 })).toEqual(hoursAgo.map(at));
    expect(await times({ limit: 200, until: at(24 * 31) })).toEqual(hoursAgo.slice(4).map(at));
    expect(await times({ limit: 2, since: at(24 * 400) })).toEqual(hoursAgo.map(at));
    expect(await times({ limit: 200, since: at(24 * 120), until: at(24 * 8 - 1) })).toEqual(
      hoursAgo.slice(2, 8).map(at),
    );
  });
});
