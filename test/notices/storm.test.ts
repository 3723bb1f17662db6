import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { useTestApp, type TestApp } from '../support/test-app.js';
import { queryRows } from '../support/test-database.js';
import { startReceiver } from '../webhooks/receiver.js';
import { webhookRequest } from '../webhooks/webhook-requests.js';
import { testWorker } from '../webhooks/webhook-worker.js';
import { noticePass, serverGauge } from './notice-requests.js';

const SERVERS = 10_000;
const OPT_IN = { ADMIN_TOKEN, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };

/** `count` servers registered now, each with its code and activation, none checked in yet. */
async function registerFleet(t: TestApp, count: number) {
  const at = t.clock.now().toISOString();
  const db = t.database.db;
  await db.execute(sql`insert into install_codes (id, code_hash, hint, status, issued_at, expires_at)
    select 'ic_' || lpad(to_hex(i), 16, '0'), md5('code' || i), 'SDNS-SD-…' || i, 'consumed', ${at}::timestamptz, ${at}::timestamptz + interval '1 hour'
    from generate_series(1, ${count}::int) i`);
  await db.execute(sql`insert into activations (id, install_code_id, status, hostname, public_ip, machine_id, ssh_fingerprint, requested_ref,
      installer_version, install_token_jti_hash, install_token_expires_at, created_at, confirmed_at)
    select 'act_' || lpad(to_hex(i), 16, '0'), 'ic_' || lpad(to_hex(i), 16, '0'), 'confirmed', 'host-' || i || '.example.net', '203.0.113.7',
      md5('machine' || i), 'SHA256:' || md5('key' || i), 'main', '2026.11.20.1', md5('jti' || i), ${at}::timestamptz + interval '1 hour', ${at}::timestamptz, ${at}::timestamptz
    from generate_series(1, ${count}::int) i`);
  await db.execute(sql`insert into servers (id, activation_id, agent_token_hash, hostname, public_ip, machine_id, ssh_fingerprint, agent_version, status, registered_at)
    select 'srv_' || lpad(to_hex(i), 16, '0'), 'act_' || lpad(to_hex(i), 16, '0'), md5('agent' || i), 'host-' || i || '.example.net', '203.0.113.7',
      md5('machine' || i), 'SHA256:' || md5('key' || i), '2026.11.20.1', 'active', ${at}::timestamptz
    from generate_series(1, ${count}::int) i`);
}

describe('notices: a storm of servers going quiet at once (DESIGN §28)', () => {
  const t = useTestApp(OPT_IN);
  const receivers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('10,000 servers going stale at once: a pass in batches of 1,000, and one digest per chat endpoint per minute', async () => {
    await registerFleet(t, SERVERS);
    const endpoints = [];
    for (const format of ['slack', 'discord'] as const) {
      const receiver = await startReceiver();
      receivers.push(receiver);
      expect(
        (await webhookRequest(t, 'webhooks', 'POST', { url: receiver.url, events: ['server.went_stale'], format }))
          .status,
      ).toBe(201);
      endpoints.push({ format, receiver });
    }
    const { worker } = testWorker(t);
    expect((await noticePass(t)).batches).toBe(3); // nothing to tell: one statement each for servers, codes, tokens
    t.clock.advance(601);

    const pass = await noticePass(t);
    expect(pass.written).toEqual({ 'server.went_stale': SERVERS });
    expect(pass.batches).toBe(SERVERS / 1000 + 1 + 2); // ten full batches and the one that found none, then codes and tokens
    expect(await serverGauge(t)).toMatchObject({ active: 0, stale: SERVERS });

    for (let i = 0; i < 3; i++) {
      await worker.runOnce();
      t.clock.advance(15);
    }
    for (const { format, receiver } of endpoints) {
      expect(receiver.received, format).toHaveLength(1);
      const body = JSON.parse(receiver.received[0]!.body);
      const said = format === 'slack' ? body.text : body.content;
      expect(said).toContain('10,000 SlowDNS events');
      expect(said).toContain('servers stopped checking in: 10,000');
    }
    const [pending] = await queryRows<{ pending: number; delivered: number }>(
      t.database.db,
      sql`select count(*) filter (where status = 'pending')::int as pending, count(*) filter (where status = 'delivered')::int as delivered from webhook_deliveries`,
    );
    expect(pending).toEqual({ pending: 0, delivered: 2 * SERVERS });
    // Once each: the next pass writes nothing more.
    expect((await noticePass(t)).written).toEqual({});
  }, 300_000);
});
