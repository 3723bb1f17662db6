import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { webhookEndpoints } from '../../src/db/schema.js';
import { eventTrail } from '../support/event-trail.js';
import { expectError } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { addWebhook, webhookRequest } from './webhook-requests.js';

const KEY_ENCRYPTION_KEY = 'q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c';

describe('webhooks: endpoints', () => {
  const t = useTestApp({ ADMIN_TOKEN, KEY_ENCRYPTION_KEY });

  it('creates an endpoint with its secret and URL shown once, then lists and shows it without either', async () => {
    const created = await addWebhook(t, 'https://hooks.example.com/slowdns?token=abc', [
      'activation.confirmed',
      'server.revoked',
    ]);
    expect(created).toEqual({
      webhook_id: expect.stringMatching(/^wh_[0-9a-f]{16}$/),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      url: 'https://hooks.example.com/slowdns?token=abc',
      url_host: 'hooks.example.com',
      description: null,
      format: 'standard',
      events: ['activation.confirmed', 'server.revoked'],
      status: 'enabled',
      health: 'healthy',
      pending_deliveries: 0,
      created_at: '2026-11-22T10:00:00+00:00',
      last_success_at: null,
      last_failure_at: null,
      failing_since: null,
      disabled_at: null,
      previous_secret_expires_at: null,
    });
    const { secret, ...made } = created;
    const record = { ...made, url: null };
    const list = await (await webhookRequest(t, 'webhooks', 'GET')).json();
    expect(list.data.items).toEqual([record]);
    const shown = await (await webhookRequest(t, `webhooks/${created.webhook_id}`, 'GET')).json();
    expect(shown.data).toEqual(record);
    expect(JSON.stringify([list, shown])).not.toContain(secret.slice(6));
    expect(JSON.stringify([list, shown])).not.toContain('token=abc');
    // Sealed under KEY_ENCRYPTION_KEY: neither the secret nor the URL is anywhere in the row.
    const [row] = await t.database.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, created.webhook_id));
    expect(row!.secret).toBeNull();
    expect(row!.secretSealed).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    expect(row!.url).toBeNull();
    expect(row!.urlSealed).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain('token=abc');
    const trail = await eventTrail(t).take();
    expect(trail.at(-1)).toMatchObject({
      type: 'webhook_endpoint.created',
      actor: 'operator',
      data: { webhook_endpoint_id: created.webhook_id, url_host: 'hooks.example.com', operator: 'root' },
    });
  });

  it('pauses, resumes, rotates the secret (the previous one signs for a day) and removes, each recorded', async () => {
    const { webhook_id, secret } = await addWebhook(t, 'https://hooks.example.com/a');
    const paused = await webhookRequest(t, `webhooks/${webhook_id}`, 'PATCH', { paused: true });
    expect((await paused.json()).data).toMatchObject({ status: 'paused', health: 'paused' });
    expect(
      (await (await webhookRequest(t, `webhooks/${webhook_id}`, 'PATCH', { paused: true })).json()).data.status,
    ).toBe('paused');
    const resumed = await webhookRequest(t, `webhooks/${webhook_id}`, 'PATCH', { paused: false });
    expect((await resumed.json()).data).toMatchObject({ status: 'enabled', health: 'healthy' });
    const rotated = await (await webhookRequest(t, `webhooks/${webhook_id}/rotate-secret`, 'POST')).json();
    expect(rotated.data).toEqual({
      webhook_id,
      secret: expect.stringMatching(/^whsec_/),
      previous_secret_expires_at: '2026-11-23T10:00:00+00:00',
    });
    expect(rotated.data.secret).not.toBe(secret);
    const removed = await webhookRequest(t, `webhooks/${webhook_id}`, 'DELETE');
    expect((await removed.json()).data).toEqual({ webhook_id, removed: true });
    await expectError(await webhookRequest(t, `webhooks/${webhook_id}`, 'GET'), 404, 'webhook_endpoint_not_found');
    await expectError(await webhookRequest(t, `webhooks/${webhook_id}`, 'DELETE'), 404, 'webhook_endpoint_not_found');
    const types = await eventTrail(t).types();
    expect(types).toEqual([
      'webhook_endpoint.created',
      'webhook_endpoint.paused',
      'webhook_endpoint.resumed',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.removed',
    ]);
  });

  it.each([
    ['not http(s)', 'ftp://hooks.example.com/x'],
    ['not a URL', 'hooks.example.com/x'],
    ['plain http without the opt-in', 'http://hooks.example.com/x'],
    ['too long', `https://hooks.example.com/${'a'.repeat(2100)}`],
    ['with credentials', 'https://user:pass@hooks.example.com/x'],
    ['at 127.0.0.1', 'https://127.0.0.1/x'],
    ['at 127.0.0.1 written as a number', 'https://2130706433/x'],
    ['at 127.0.0.1 written in hex', 'https://0x7f.1/x'],
    ['at 10.0.0.0/8', 'https://10.1.2.3/x'],
    ['at the metadata address', 'https://169.254.169.254/latest/meta-data'],
    ['at ::1', 'https://[::1]/x'],
    ['at an IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/x'],
    ['at a NAT64 private address', 'https://[64:ff9b::a00:1]/x'],
    ['at CGNAT', 'https://100.64.0.1/x'],
    ['at unique-local', 'https://[fc00::1]/x'],
    ['at 0.0.0.0', 'https://0.0.0.0/x'],
    ['at localhost', 'https://localhost/x'],
  ])('refuses a URL %s with 400 webhook_url_not_allowed', async (_, url) => {
    await expectError(
      await webhookRequest(t, 'webhooks', 'POST', { url, events: ['*'] }),
      400,
      'webhook_url_not_allowed',
    );
    expect(await eventTrail(t).take()).toEqual([]);
  });

  it('refuses unknown event types, an empty list and a malformed id with 400 validation_failed', async () => {
    await expectError(
      await webhookRequest(t, 'webhooks', 'POST', { url: 'https://hooks.example.com/x', events: ['code.stolen'] }),
      400,
      'validation_failed',
    );
    await expectError(
      await webhookRequest(t, 'webhooks', 'POST', { url: 'https://hooks.example.com/x', events: [] }),
      400,
      'validation_failed',
    );
    await expectError(await webhookRequest(t, 'webhooks/wh_x', 'GET'), 400, 'validation_failed');
    await expectError(
      await webhookRequest(t, 'webhooks/wh_0123456789abcdef', 'PATCH', { paused: 'yes' }),
      400,
      'validation_failed',
    );
  });

  it('refuses a 51st endpoint with 409 webhook_endpoint_limit_reached', async () => {
    for (let i = 0; i < 50; i++) await addWebhook(t, `https://hooks.example.com/${i}`);
    await expectError(
      await webhookRequest(t, 'webhooks', 'POST', { url: 'https://hooks.example.com/51', events: ['*'] }),
      409,
      'webhook_endpoint_limit_reached',
    );
    expect((await (await webhookRequest(t, 'webhooks', 'GET')).json()).data.items).toHaveLength(50);
  });

  it('needs the operator token', async () => {
    await expectError(await t.request('/api/v2/admin/webhooks'), 401, 'admin_token_invalid');
  });
});

describe('webhooks: endpoints with the opt-in switches', () => {
  const t = useTestApp({ ADMIN_TOKEN, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });

  it('accepts http and private addresses, never the metadata addresses, and keeps the secret in clear without a KEK', async () => {
    const created = await addWebhook(t, 'http://127.0.0.1:9/hook');
    expect(created.url_host).toBe('127.0.0.1:9');
    await addWebhook(t, 'http://[::1]:9/hook');
    await addWebhook(t, 'http://10.1.2.3/hook');
    for (const url of ['http://169.254.169.254/x', 'http://[fd00:ec2::254]/x', 'http://[::ffff:169.254.169.254]/x']) {
      await expectError(
        await webhookRequest(t, 'webhooks', 'POST', { url, events: ['*'] }),
        400,
        'webhook_url_not_allowed',
      );
    }
    const [row] = await t.database.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, created.webhook_id));
    expect(row!.secret).toBe(created.secret);
  });
});
