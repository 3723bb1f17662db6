import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { spawnService, TEST_KEK } from '../support/spawn-service.js';
import { startReceiver } from './receiver.js';

const adminUrl = process.env.DATABASE_URL;

/** The real server, as `npm start` runs it: on a fresh PostgreSQL database under DATABASE_URL, else on an embedded folder. */
describe('kill -9 in the middle of a delivery', { timeout: 180_000 }, () => {
  let dir: string;
  let scratch: ScratchDatabase | undefined;
  let env: Record<string, string>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'slowdns-webhook-kill-'));
    scratch = adminUrl ? await createScratchDatabase(adminUrl, 'slowdns_webhook_kill') : undefined;
    env = {
      ADMIN_TOKEN,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // The killed attempt's lease runs out in 6 s instead of 30: what is tested is that it is sent again
      // after its lease, not how long a lease is. Its timeout (5 s) leaves the kill time to land first.
      WEBHOOK_TIMEOUT_SECONDS: '5',
      WEBHOOK_LEASE_SECONDS: '6',
      ...(scratch ? { DATABASE_URL: scratch.url, KEY_ENCRYPTION_KEY: TEST_KEK } : { DATA_DIR: join(dir, 'data') }),
    };
  });
  afterAll(async () => {
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses nothing: the restarted service sends the message again, with the same webhook-id', async () => {
    let killedMidDelivery: () => void = () => {};
    const firstArrived = new Promise<void>((resolve) => (killedMidDelivery = resolve));
    // The first attempt never gets an answer: the service is killed while it waits.
    const receiver = await startReceiver((n) => (n === 0 ? () => killedMidDelivery() : 200));
    const first = spawnService(env);
    let second: ReturnType<typeof spawnService> | undefined;
    try {
      const port = await first.port;
      await first.logged('ready');
      const api = (p: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${p}`, init);
      const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
      const created = await (
        await api(`${port}/api/v2/admin/webhooks`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ url: receiver.url, events: ['*'] }),
        })
      ).json();
      const webhookId = created.data.webhook_id as string;
      const queued = await (
        await api(`${port}/api/v2/admin/webhooks/${webhookId}/test`, { method: 'POST', headers: auth })
      ).json();
      await firstArrived;
      first.process.kill('SIGKILL');
      await first.exited;

      second = spawnService(env);
      const port2 = await second.port;
      await second.logged('ready');
      // Within the lease and a pass: bounded by the test's limit, no time asserted.
      for (let i = 0; i < 120 && receiver.received.length < 2; i++) await new Promise((r) => setTimeout(r, 500));
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(queued.data.message_id);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
      expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
      let delivery: Record<string, unknown> = {};
      for (let i = 0; i < 20 && delivery.status !== 'delivered'; i++) {
        delivery = (
          await (await api(`${port2}/api/v2/admin/webhooks/${webhookId}/deliveries`, { headers: auth })).json()
        ).data.items[0];
        if (delivery.status !== 'delivered') await new Promise((r) => setTimeout(r, 250));
      }
      // The killed attempt left no record: the one attempt recorded is the one that delivered.
      expect(delivery).toMatchObject({
        delivery_id: queued.data.delivery_id,
        status: 'delivered',
        attempts: [expect.objectContaining({ status_code: 200 })],
      });
    } finally {
      if (first.process.exitCode === null && first.process.signalCode === null) first.process.kill('SIGKILL');
      if (second) expect(await second.stop()).toBe(0);
      await receiver.close();
    }
  });
});
