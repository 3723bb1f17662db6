import { sql } from 'drizzle-orm';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../src/db/schema.js';
import { stateCountsReading } from '../../src/domain/admin-lists/state-counts-reading.js';
import { stateCounts } from '../../src/domain/admin-lists/state-counts.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { expectError } from '../support/install-flow.js';
import { installCollectingSecrets } from '../support/install-secrets.js';
import { useTestApp } from '../support/test-app.js';
import { queryRows } from '../support/test-database.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { startReceiver } from './receiver.js';
import { addWebhook, webhookRequest } from './webhook-requests.js';
import { testWorker, writeEvent } from './webhook-worker.js';

const OPT_IN = { ADMIN_TOKEN, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };

describe('webhooks: delivery to a real receiver', () => {
  const t = useTestApp(OPT_IN);
  const receivers: { close(): Promise<void> }[] = [];
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('signs each message per Standard Webhooks: the library verifies it, and refuses it with a changed body or an old timestamp', async () => {
    t.clock.set(new Date()); // the library compares webhook-timestamp with its own clock
    const r = await receiver();
    const { secret } = await addWebhook(t, r.url);
    const install = await installCollectingSecrets(t);
    const { worker } = testWorker(t);
    await worker.runOnce();

    // Sent several at once: in no guaranteed order.
    expect(r.received.map((m) => JSON.parse(m.body).type).sort()).toEqual([
      'activation.created',
      'install_code.activated',
      'install_code.issued',
      'server.registered',
    ]);
    const message = r.received.find((m) => JSON.parse(m.body).type === 'activation.created')!;
    const verified = new Webhook(secret).verify(message.body, message.headers as Record<string, string>) as Record<
      string,
      any
    >;
    expect(verified).toEqual({
      type: 'activation.created',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: {
        event_id: expect.any(Number),
        install_code_id: expect.stringMatching(/^ic_/),
        activation_id: install.activationId,
        actor: 'installer',
        hostname: 'vpn1.example.net',
        public_ip: expect.any(String),
        machine_id: expect.any(String),
        ssh_key_proven: false,
      },
    });
    expect(message.headers['webhook-id']).toBe(`evt_${verified.data.event_id}`);
    expect(message.headers['content-type']).toBe('application/json');
    // Nothing secret in any message: not the install code, the tokens, nor the endpoint's secret.
    const all = r.received.map((m) => m.body).join('\n');
    for (const secretValue of [...install.secrets, secret.slice(6)]) expect(all).not.toContain(secretValue);

    const headers = message.headers as Record<string, string>;
    expect(() => new Webhook(secret).verify(message.body.replace('installer', 'operator'), headers)).toThrow(
      WebhookVerificationError,
    );
    const old = String(Math.floor(Date.now() / 1000) - 600);
    const oldSignature = new Webhook(secret).sign(headers['webhook-id']!, new Date(Number(old) * 1000), message.body);
    expect(() =>
      new Webhook(secret).verify(message.body, {
        ...headers,
        'webhook-timestamp': old,
        'webhook-signature': oldSignature,
      }),
    ).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(message.body, { ...headers, 'webhook-timestamp': old })).toThrow(
      WebhookVerificationError,
    );
  });

  it('during a rotation both secrets sign: a receiver holding either verifies', async () => {
    t.clock.set(new Date());
    const r = await receiver();
    const { webhook_id, secret: previous } = await addWebhook(t, r.url);
    const rotated = await (await webhookRequest(t, `webhooks/${webhook_id}/rotate-secret`, 'POST')).json();
    await writeEvent(t);
    await testWorker(t).worker.runOnce();
    const message = r.received.find((m) => JSON.parse(m.body).type === 'server.revoked')!;
    expect(String(message.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [previous, rotated.data.secret])
      expect(() => new Webhook(secret).verify(message.body, message.headers as Record<string, string>)).not.toThrow();
  });

  it('a receiver that fails then succeeds gets the same webhook-id and body again after about 5 s, each attempt listed', async () => {
    const r = await receiver((n) => (n === 0 ? 503 : 204));
    const { webhook_id } = await addWebhook(t, r.url, ['server.revoked']);
    await writeEvent(t);
    const { worker, outcomes } = testWorker(t);
    await worker.runOnce();
    await worker.runOnce(); // not due yet
    expect(r.received).toHaveLength(1);
    t.clock.advance(5);
    await worker.runOnce();
    expect(r.received).toHaveLength(2);
    expect(r.received[1]!.headers['webhook-id']).toBe(r.received[0]!.headers['webhook-id']);
    expect(r.received[1]!.body).toBe(r.received[0]!.body);
    expect(outcomes).toEqual(['retrying', 'delivered']);

    const list = (await (await webhookRequest(t, `webhooks/${webhook_id}/deliveries`, 'GET')).json()).data.items;
    expect(list).toEqual([
      {
        delivery_id: expect.stringMatching(/^whd_[0-9a-f]{16}$/),
        webhook_id,
        message_id: r.received[0]!.headers['webhook-id'],
        type: 'server.revoked',
        event_id: expect.any(Number),
        status: 'delivered',
        attempt_count: 2,
        next_attempt_at: null,
        created_at: '2026-11-22T10:00:00+00:00',
        delivered_at: '2026-11-22T10:00:05+00:00',
        attempts: [
          // No excerpt of the answer: the receiver is a private (loopback) target.
          {
            attempted_at: '2026-11-22T10:00:00+00:00',
            duration_ms: expect.any(Number),
            status_code: 503,
            error: null,
            response_excerpt: null,
          },
          {
            attempted_at: '2026-11-22T10:00:05+00:00',
            duration_ms: expect.any(Number),
            status_code: 204,
            error: null,
            response_excerpt: null,
          },
        ],
      },
    ]);
    const shown = (await (await webhookRequest(t, `webhooks/${webhook_id}`, 'GET')).json()).data;
    expect(shown).toMatchObject({
      health: 'healthy',
      last_success_at: '2026-11-22T10:00:05+00:00',
      last_failure_at: '2026-11-22T10:00:00+00:00',
      pending_deliveries: 0,
    });
  });

  it('a message failed after the whole schedule (8 attempts) is sent again by a replay, with the same webhook-id', async () => {
    let failing = true;
    const r = await receiver(() => (failing ? 500 : 200));
    const { webhook_id } = await addWebhook(t, r.url);
    await writeEvent(t);
    const { worker, outcomes } = testWorker(t);
    await worker.runOnce();
    for (const delay of [5, 300, 1800, 7200, 18000, 36000, 36000]) {
      t.clock.advance(delay);
      await worker.runOnce();
    }
    expect(outcomes).toEqual([...Array(7).fill('retrying'), 'failed']);
    const [delivery] = (await (await webhookRequest(t, `webhooks/${webhook_id}/deliveries`, 'GET')).json()).data.items;
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 8, next_attempt_at: null });
    expect(delivery.attempts).toHaveLength(8);
    t.clock.advance(36000);
    await worker.runOnce();
    expect(r.received).toHaveLength(8);

    failing = false;
    const replayed = await webhookRequest(t, `webhook-deliveries/${delivery.delivery_id}/replay`, 'POST');
    expect(replayed.status).toBe(202);
    expect((await replayed.json()).data).toMatchObject({
      delivery_id: delivery.delivery_id,
      status: 'pending',
      attempt_count: 0,
    });
    await worker.runOnce();
    // The replay itself is an event (webhook_delivery.replayed), which this endpoint of every type receives too.
    const again = r.received.slice(8).filter((m) => m.headers['webhook-id'] === r.received[0]!.headers['webhook-id']);
    expect(again).toHaveLength(1);
    await expectError(
      await webhookRequest(t, 'webhook-deliveries/whd_0123456789abcdef/replay', 'POST'),
      404,
      'webhook_delivery_not_found',
    );
    await expectError(await webhookRequest(t, 'webhook-deliveries/nope/replay', 'POST'), 400, 'validation_failed');
  });

  it('a replay takes an optional reason and records webhook_delivery.replayed with the operator', async () => {
    const r = await receiver(() => 500);
    const { webhook_id } = await addWebhook(t, r.url, ['server.revoked']);
    await writeEvent(t);
    await testWorker(t).worker.runOnce();
    const [delivery] = (await (await webhookRequest(t, `webhooks/${webhook_id}/deliveries`, 'GET')).json()).data.items;
    const replayed = await webhookRequest(t, `webhook-deliveries/${delivery.delivery_id}/replay`, 'POST', {
      reason: 'Receiver fixed',
    });
    expect(replayed.status).toBe(202);
    expect((await webhookRequest(t, `webhook-deliveries/${delivery.delivery_id}/replay`, 'POST')).status).toBe(202);
    const recorded = await queryRows<{ actor: string; data: Record<string, unknown> }>(
      t.database.db,
      sql`select actor, data from events where type = 'webhook_delivery.replayed' order by id`,
    );
    expect(recorded).toEqual([
      {
        actor: 'operator',
        data: {
          webhook_delivery_id: delivery.delivery_id,
          webhook_endpoint_id: webhook_id,
          message_id: delivery.message_id,
          event_type: 'server.revoked',
          operator: 'root',
          reason: 'Receiver fixed',
        },
      },
      expect.objectContaining({ data: expect.objectContaining({ operator: 'root', reason: null }) }),
    ]);
  });

  it('a paused endpoint receives its backlog on resume', async () => {
    const r = await receiver();
    const { webhook_id } = await addWebhook(t, r.url, ['server.revoked']);
    await webhookRequest(t, `webhooks/${webhook_id}`, 'PATCH', { paused: true });
    for (const reason of ['a', 'b', 'c']) {
      await writeEvent(t, { data: { reason } });
      t.clock.advance(1);
    }
    const { worker } = testWorker(t);
    await worker.runOnce();
    expect(r.received).toHaveLength(0);
    expect((await (await webhookRequest(t, `webhooks/${webhook_id}`, 'GET')).json()).data.pending_deliveries).toBe(3);
    await webhookRequest(t, `webhooks/${webhook_id}`, 'PATCH', { paused: false });
    await worker.runOnce();
    expect(r.received.map((m) => JSON.parse(m.body).data.reason).sort()).toEqual(['a', 'b', 'c']);
  });

  it('counts attempts by outcome and shows the backlog (pending, oldest age) of the periodic reading', async () => {
    let n = 0;
    const r = await receiver(() => (n++ === 0 ? 500 : 200));
    const { webhook_id } = await addWebhook(t, r.url, ['server.revoked']);
    const fleet = stateCountsReading(() => stateCounts(t.database.db, t.clock.now(), { deadAfterSeconds: 86_400 }));
    const metrics = createMetrics({
      counts: fleet,
    });
    const { worker } = testWorker(t, { onAttempt: (outcome) => metrics.webhookAttempt(outcome) });
    await writeEvent(t);
    await worker.runOnce();
    await webhookRequest(t, `webhooks/${webhook_id}`, 'PATCH', { paused: true });
    await writeEvent(t);
    t.clock.advance(90);
    await worker.runOnce();
    await fleet.refresh();
    const text = await metrics.registry.metrics();
    expect(text).toContain('slowdns_webhook_deliveries_total{outcome="retrying"} 1');
    expect(text).toContain('slowdns_webhook_deliveries_total{outcome="delivered"} 0');
    expect(text).toContain('slowdns_webhook_deliveries_pending 2');
    expect(text).toContain('slowdns_webhook_oldest_pending_age_seconds 90');
  });

  it('finds events by what is undispatched, not by id: an event committed late with a smaller id is delivered too', async () => {
    const r = await receiver();
    await addWebhook(t, r.url, ['server.revoked']);
    await writeEvent(t, { data: { reason: 'first' } });
    await writeEvent(t, { data: { reason: 'second' } });
    const { worker } = testWorker(t);
    await worker.runOnce();
    expect(r.received).toHaveLength(2);
    // As a transaction that took its id before the others and committed after they were dispatched.
    const [{ id }] = (await queryRows<{ id: number }>(
      t.database.db,
      sql`select min(id)::int - 1 as id from events`,
    )) as [{ id: number }];
    await t.database.db.execute(
      sql`insert into events (id, type, occurred_at, actor, server_id, data) overriding system value values (${id}, 'server.revoked', now(), 'agent', 'srv_0123456789abcdef', '{"reason":"late"}')`,
    );
    await worker.runOnce();
    expect(r.received.map((m) => JSON.parse(m.body).data.reason).slice(2)).toEqual(['late']);
  });

  it('with no endpoint at all, dispatching writes nothing per event, and those events go to no endpoint created later (DESIGN §23)', async () => {
    await writeEvent(t, { data: { reason: 'nobody listens' } });
    const { worker } = testWorker(t);
    await worker.runOnce();
    const undispatched = async () =>
      (
        await queryRows<{ n: number }>(
          t.database.db,
          sql`select count(*)::int as n from events where delivered_at is null`,
        )
      )[0]!.n;
    expect(await undispatched()).toBe(1);
    const r = await receiver();
    await addWebhook(t, r.url, ['*']);
    await writeEvent(t, { data: { reason: 'after' } });
    await worker.runOnce();
    expect(r.received.map((m) => JSON.parse(m.body).data.reason)).toEqual(['after']);
    expect(await undispatched()).toBe(0);
  });

  it('an endpoint receives only events dispatched after its creation, not its own creation, and only the types it asked for', async () => {
    const r = await receiver();
    await writeEvent(t, { data: { reason: 'before' } });
    const { worker } = testWorker(t);
    await worker.runOnce();
    await addWebhook(t, r.url, ['server.revoked', 'webhook_endpoint.created']);
    await writeEvent(t, {
      type: 'activation.released',
      activationId: 'act_0123456789abcdef',
      serverId: undefined,
      data: {},
    });
    await writeEvent(t, { data: { reason: 'after' } });
    await worker.runOnce();
    expect(r.received.map((m) => JSON.parse(m.body).data.reason)).toEqual(['after']);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const r = await receiver((n) => (n === 0 ? (_, res) => res.writeHead(302, { location: '/elsewhere' }).end() : 200));
    const { webhook_id } = await addWebhook(t, r.url);
    await (await webhookRequest(t, `webhooks/${webhook_id}/test`, 'POST')).json();
    const { worker, outcomes } = testWorker(t);
    await worker.runOnce();
    expect(outcomes).toEqual(['retrying']);
    expect(r.received.map((m) => m.path)).toEqual(['/hook']);
  });

  it('sends a test message on request', async () => {
    t.clock.set(new Date());
    const r = await receiver();
    const { webhook_id, secret } = await addWebhook(t, r.url, ['server.revoked']);
    const queued = await webhookRequest(t, `webhooks/${webhook_id}/test`, 'POST');
    expect(queued.status).toBe(202);
    const delivery = (await queued.json()).data;
    expect(delivery).toMatchObject({
      type: 'webhook.test',
      status: 'pending',
      event_id: null,
      message_id: expect.stringMatching(/^msg_[0-9a-f]{16}$/),
      attempts: [],
    });
    await testWorker(t).worker.runOnce();
    expect(new Webhook(secret).verify(r.received[0]!.body, r.received[0]!.headers as Record<string, string>)).toEqual({
      type: 'webhook.test',
      timestamp: expect.any(String),
      data: { webhook_endpoint_id: webhook_id },
    });
  });

  it('a test message or the deliveries of an unknown endpoint are 404 webhook_endpoint_not_found', async () => {
    await expectError(
      await webhookRequest(t, 'webhooks/wh_0123456789abcdef/test', 'POST'),
      404,
      'webhook_endpoint_not_found',
    );
    await expectError(
      await webhookRequest(t, 'webhooks/wh_0123456789abcdef/deliveries', 'GET'),
      404,
      'webhook_endpoint_not_found',
    );
  });

  it('an endpoint failing for 5 days is disabled with webhook_endpoint.disabled, and gets no new messages until resumed', async () => {
    const r = await receiver(() => 500);
    const { webhook_id } = await addWebhook(t, r.url, ['server.revoked']);
    await writeEvent(t);
    const { worker } = testWorker(t);
    await worker.runOnce();
    t.clock.advance(5 * 24 * 3600);
    await writeEvent(t);
    await worker.runOnce();
    const shown = (await (await webhookRequest(t, `webhooks/${webhook_id}`, 'GET')).json()).data;
    expect(shown).toMatchObject({
      status: 'disabled',
      health: 'disabled',
      failing_since: '2026-11-22T10:00:00+00:00',
      disabled_at: '2026-11-27T10:00:00+00:00',
    });
    const [disabled] = await queryRows<{ actor: string; data: Record<string, string> }>(
      t.database.db,
      sql`select actor, data from events where type = 'webhook_endpoint.disabled'`,
    );
    expect(disabled).toEqual({
      actor: 'service',
      data: {
        webhook_endpoint_id: webhook_id,
        url_host: `127.0.0.1:${r.port}`,
        failing_since: '2026-11-22T10:00:00.000Z',
      },
    });
    const before = r.received.length;
    await writeEvent(t);
    t.clock.advance(36000);
    await worker.runOnce();
    expect(r.received).toHaveLength(before);
    // Its undelivered messages stay for replay.
    expect(
      (await (await webhookRequest(t, `webhooks/${webhook_id}/deliveries`, 'GET')).json()).data.items,
    ).toHaveLength(2);
    await webhookRequest(t, `webhooks/${webhook_id}`, 'PATCH', { paused: false });
    expect((await (await webhookRequest(t, `webhooks/${webhook_id}`, 'GET')).json()).data).toMatchObject({
      status: 'enabled',
      failing_since: null,
    });
  });

  it('keeps undelivered messages 14 days, then prunes and counts them', async () => {
    const r = await receiver();
    const { webhook_id } = await addWebhook(t, r.url);
    await webhookRequest(t, `webhooks/${webhook_id}`, 'PATCH', { paused: true });
    await writeEvent(t);
    const expired: number[] = [];
    const { worker } = testWorker(t, { onExpired: (n) => expired.push(n) });
    await worker.runOnce();
    t.clock.advance(14 * 24 * 3600 - 60);
    await worker.prune();
    expect(await t.database.db.select().from(webhookDeliveries)).toHaveLength(2); // the event and the pause's own event
    t.clock.advance(120);
    await worker.prune();
    expect(await t.database.db.select().from(webhookDeliveries)).toHaveLength(0);
    expect(expired).toEqual([2]);
  });
});

describe('webhooks: the safety rules again at delivery', () => {
  const t = useTestApp(OPT_IN);

  it('refuses, at delivery, an address the switches no longer allow, and a name resolving to one, sending nothing', async () => {
    const r = await startReceiver();
    try {
      await addWebhook(t, r.url, ['server.revoked']);
      await addWebhook(t, 'http://hooks.example.test/hook', ['server.revoked']);
      await writeEvent(t);
      const { worker, outcomes } = testWorker(t, {
        safety: { allowHttp: true, allowPrivate: false },
        resolve: async () => ['10.0.0.7'],
      });
      await worker.runOnce();
      expect(outcomes).toEqual(['retrying', 'retrying']);
      expect(r.received).toHaveLength(0);
      const errors = await queryRows<{ error: string }>(
        t.database.db,
        sql`select error from webhook_attempts order by error`,
      );
      expect(errors.map((e) => e.error)).toEqual([
        expect.stringMatching(/^refused: 10\.0\.0\.7 is not a public address/),
        expect.stringMatching(/^refused: 127\.0\.0\.1 is not a public address/),
      ]);
    } finally {
      await r.close();
    }
  });

  it('connects to the address it checked, whatever the name: a name resolved to the receiver reaches it', async () => {
    const r = await startReceiver();
    try {
      await addWebhook(t, `http://hooks.example.test:${r.port}/hook`);
      await writeEvent(t);
      const { worker, outcomes } = testWorker(t, { resolve: async () => ['127.0.0.1'] });
      await worker.runOnce();
      expect(outcomes).toEqual(['delivered']);
      expect(r.received[0]!.headers.host).toBe(`hooks.example.test:${r.port}`);
    } finally {
      await r.close();
    }
  });

  it('cuts a receiver that hangs at the attempt timeout and tries again later', async () => {
    const r = await startReceiver(() => 'hang');
    try {
      const { webhook_id } = await addWebhook(t, r.url);
      await writeEvent(t);
      // WEBHOOK_TIMEOUT_SECONDS (10 s by default) as the worker takes it; the cut, not its length, is tested.
      const { worker, outcomes } = testWorker(t, { timeoutMs: 500 });
      await worker.runOnce();
      expect(outcomes).toEqual(['retrying']);
      const [delivery] = (await (await webhookRequest(t, `webhooks/${webhook_id}/deliveries`, 'GET')).json()).data
        .items;
      expect(delivery.attempts).toEqual([expect.objectContaining({ status_code: null, error: 'timeout' })]);
      expect(delivery.attempts[0].duration_ms).toBeGreaterThanOrEqual(500);
    } finally {
      await r.close();
    }
  });
});

describe('webhooks: an endpoint removed during an attempt', () => {
  const t = useTestApp(OPT_IN);

  it('the attempt ends without error and records nothing', async () => {
    let removed: () => void = () => {};
    const gone = new Promise<void>((resolve) => (removed = resolve));
    const r = await startReceiver(() => (_, res) => void gone.then(() => res.writeHead(200).end()));
    try {
      const { webhook_id } = await addWebhook(t, r.url, ['server.revoked']);
      await writeEvent(t);
      const { worker, outcomes } = testWorker(t);
      const pass = worker.runOnce();
      while (r.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      expect((await webhookRequest(t, `webhooks/${webhook_id}`, 'DELETE')).status).toBe(200);
      removed();
      await pass;
      expect(outcomes).toEqual(['delivered']);
      expect(await queryRows(t.database.db, sql`select * from webhook_attempts`)).toEqual([]);
    } finally {
      await r.close();
    }
  });
});
