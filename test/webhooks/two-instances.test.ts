import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { createWebhookWorker, type WebhookWorker } from '../../src/domain/webhooks/delivery-loop.js';
import { recordEvent } from '../../src/domain/events/event-trail.js';
import { createLogger } from '../../src/logger.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { describeBehindPooler } from '../support/pooler.js';
import { buildTestApp, testKeyRing, type TestApp } from '../support/test-app.js';
import { openTestDatabase } from '../support/test-database.js';
import { startReceiver } from './receiver.js';
import { addWebhook } from './webhook-requests.js';

const OPT_IN = { ADMIN_TOKEN, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' };
const EVENTS = 40;

/**
 * Two instances on one PostgreSQL (each its own pool, as two servers would have), both running delivery
 * passes at once over the same backlog: every message is attempted once (its `webhook-id` arrives once),
 * none twice, none missed. Run directly against PostgreSQL and through a transaction-mode pooler.
 */
function twoInstances(url: () => string | undefined) {
  let t: TestApp;
  let second: DatabaseHandle;
  beforeAll(async () => {
    t = buildTestApp(await openTestDatabase(url()), await testKeyRing(), OPT_IN);
    second = await openDatabase({ databaseUrl: t.database.url!, dataDir: 'unused' });
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  const worker = (db: DatabaseHandle['db']): WebhookWorker =>
    createWebhookWorker({
      db,
      clock: t.clock,
      logger: createLogger('silent'),
      safety: t.config.webhookSafety,
      keyEncryptionKey: undefined,
      consolePublicUrl: t.config.consolePublicUrl,
    });

  it('each message is delivered once per attempt, by one instance or the other', { timeout: 120_000 }, async () => {
    // A slow receiver, so that the instances' passes overlap while attempts are under way.
    const receiver = await startReceiver(() => (_, res) => setTimeout(() => res.writeHead(200).end(), 20));
    try {
      await addWebhook(t, receiver.url, ['server.revoked']);
      for (let i = 0; i < EVENTS; i++)
        await recordEvent(t.database.db, { actor: 'agent' }, t.clock.now(), {
          type: 'server.revoked',
          serverId: 'srv_0123456789abcdef',
          data: { n: i },
        });
      const a = worker(t.database.db);
      const b = worker(second.db);
      const run = async (w: WebhookWorker) => {
        for (let pass = 0; pass < 20 && receiver.received.length < EVENTS; pass++) await w.runOnce();
      };
      await Promise.all([run(a), run(b), run(a), run(b)]);
      const ids = receiver.received.map((m) => m.headers['webhook-id']);
      expect(ids).toHaveLength(EVENTS);
      expect(new Set(ids).size).toBe(EVENTS);
      expect(receiver.received.map((m) => JSON.parse(m.body).data.n).sort((x, y) => x - y)).toEqual(
        Array.from({ length: EVENTS }, (_, i) => i),
      );
    } finally {
      await receiver.close();
    }
  });

  it('a message leased by one instance is not attempted by the other while the attempt is under way', {
    timeout: 60_000,
  }, async () => {
    let release: () => void = () => {};
    const answered = new Promise<void>((resolve) => (release = resolve));
    const receiver = await startReceiver(() => (_, res) => void answered.then(() => res.writeHead(200).end()));
    try {
      await addWebhook(t, receiver.url, ['server.revoked']);
      await recordEvent(t.database.db, { actor: 'agent' }, t.clock.now(), {
        type: 'server.revoked',
        serverId: 'srv_0123456789abcdef',
        data: {},
      });
      const a = worker(t.database.db);
      const underWay = a.runOnce();
      while (receiver.received.length === 0) await new Promise((r) => setTimeout(r, 20));
      await worker(second.db).runOnce();
      release();
      await underWay;
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
}

describe.skipIf(!process.env.DATABASE_URL)('webhooks: two instances on one PostgreSQL', () =>
  twoInstances(() => process.env.DATABASE_URL),
);

describeBehindPooler('webhooks: two instances behind a transaction-mode pooler (PgBouncer)', (poolerUrl) =>
  twoInstances(() => poolerUrl),
);
