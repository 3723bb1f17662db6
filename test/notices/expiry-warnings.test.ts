import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { createCode, enroll } from '../fleet-codes/fleet-requests.js';
import { postJson, useTestApp, type TestApp } from '../support/test-app.js';
import { noticeEvents, noticePass } from './notice-requests.js';

const DAY = 86_400;
const root = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function mintToken(t: TestApp, name: string, lifetimeSeconds: number) {
  const expires_at = new Date(t.clock.now().getTime() + lifetimeSeconds * 1000).toISOString();
  const res = await t.request('/api/v2/admin/tokens', postJson({ name, scope: 'read', expires_at }, root));
  expect(res.status).toBe(201);
  return (await res.json()).data.operator_token_id as string;
}

describe('notices: fleet codes and operator tokens about to expire (DESIGN §28)', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('install_code.expiry_warned is written once, 24 h before a fleet code with free uses expires, not before', async () => {
    const code = await createCode(t, {
      uses: 5,
      ttl_seconds: 7 * DAY,
      description: 'web fleet',
      tags: { env: 'prod' },
    });
    t.clock.advance(6 * DAY - 1);
    await noticePass(t);
    expect(await noticeEvents(t, ['install_code.expiry_warned'])).toEqual([]);
    t.clock.advance(2);
    await Promise.all([noticePass(t), noticePass(t)]);
    await noticePass(t);
    expect(await noticeEvents(t, ['install_code.expiry_warned'])).toEqual([
      {
        type: 'install_code.expiry_warned',
        server_id: null,
        install_code_id: code.install_code_id,
        actor: 'service',
        data: expect.objectContaining({
          description: 'web fleet',
          tags: { env: 'prod' },
          uses: 5,
          uses_spent: 0,
          issued_by: 'root',
          expires_at: '2026-11-29T10:00:00.000Z',
        }),
      },
    ]);
  });

  it('no warning for a code used up, revoked, or made for less than two days', async () => {
    const used = await createCode(t, { uses: 1, ttl_seconds: 7 * DAY });
    expect((await enroll(t, used.install_code, { address: '203.0.113.7' })).status).toBe(200);
    const revoked = await createCode(t, { uses: 3, ttl_seconds: 7 * DAY });
    const res = await t.request(
      `/api/v2/admin/install-codes/${revoked.install_code_id}/revoke`,
      postJson({ reason: 'not needed' }, root),
    );
    expect(res.status).toBe(200);
    await createCode(t, { uses: 3, ttl_seconds: 36 * 3600 });
    for (const hours of [13, 24, 24, 24, 24, 24, 30]) {
      t.clock.advance(hours * 3600);
      await noticePass(t);
    }
    expect(await noticeEvents(t, ['install_code.expiry_warned'])).toEqual([]);
  });

  it('operator_token.expiry_warned is written once, 7 days before a token expires, and none for a token made for less than 14 days', async () => {
    const id = await mintToken(t, 'deploy-bot', 30 * DAY);
    await mintToken(t, 'short-lived', 10 * DAY);
    t.clock.advance(23 * DAY - 1);
    await noticePass(t);
    expect(await noticeEvents(t, ['operator_token.expiry_warned'])).toEqual([]);
    t.clock.advance(2);
    await Promise.all([noticePass(t), noticePass(t)]);
    t.clock.advance(6 * DAY);
    await noticePass(t);
    const events = await noticeEvents(t, ['operator_token.expiry_warned']);
    expect(events).toEqual([
      {
        type: 'operator_token.expiry_warned',
        server_id: null,
        install_code_id: null,
        actor: 'service',
        data: { operator_token_id: id, name: 'deploy-bot', scope: 'read', expires_at: expect.any(String) },
      },
    ]);
  });
});
