import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { machine, INSTALLER_VERSION } from '../support/install-flow.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { startTcpProxyFor, type TcpProxy } from '../support/tcp-proxy.js';
import { postJson, testKeyRing } from '../support/test-app.js';

// The database failing is an answer, not a hang: a proxy in front of this file's own database refuses,
// drops or stalls connections (the shared PostgreSQL itself is never stopped or signalled).
const adminUrl = process.env.DATABASE_URL;

/** Generous bounds: the service promises 2 s for a 503 and 5 s to recover. */
const ANSWER_BOUND_MS = 2500;
const RECOVERY_BOUND_MS = 8000;

describe.skipIf(!adminUrl)('PostgreSQL unreachable or stalled behind a proxy', () => {
  let scratch: ScratchDatabase;
  let proxy: TcpProxy;
  let database: DatabaseHandle;
  let built: App;

  beforeAll(async () => {
    scratch = await createScratchDatabase(adminUrl!, 'slowdns_outage');
    const direct = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
    await migrateDatabase(direct.db);
    await direct.close();
    proxy = await startTcpProxyFor(scratch.url);
    database = await openDatabase({ databaseUrl: proxy.urlFor(scratch.url), dataDir: 'unused' });
    built = createApp({
      db: database.db,
      availability: database.availability,
      clock: systemClock,
      config: loadConfig({ PUBLIC_BASE_URL: 'http://localhost:8080' }),
      logger: createLogger('silent'),
      keys: await testKeyRing(),
    });
  });
  afterAll(async () => {
    await proxy?.forward().catch(() => {});
    await database?.close();
    await proxy?.close();
    await scratch?.drop();
  });

  const request = async (path: string, init?: RequestInit) => {
    const started = performance.now();
    const res = await built.app.request(path, init, { incoming: { socket: { remoteAddress: '203.0.113.50' } } });
    return { res, ms: performance.now() - started, body: await res.json() };
  };
  const precheck = () =>
    request(
      '/api/v2/slowdns/install/precheck',
      postJson({
        install_code: 'SDNS-SD-AAAAAA-BBBBBB-CCCCCC',
        product: 'slowdns',
        installer_version: INSTALLER_VERSION,
        ...machine,
      }),
    );

  /** Several requests of each kind during the outage: every one a quick 503 with Retry-After. */
  async function expectFastUnavailable(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      for (const answer of await Promise.all([request('/api/v2/healthz'), precheck(), request('/api/v2/readyz')])) {
        expect(answer.res.status).toBe(503);
        expect(answer.res.headers.get('retry-after')).toBe('1');
        expect(answer.body).toEqual({ error: { code: 'service_unavailable', message: expect.any(String) } });
        expect(answer.ms).toBeLessThan(ANSWER_BOUND_MS);
      }
    }
    const live = await request('/api/v2/livez');
    expect(live.res.status).toBe(200);
    expect(live.body.data).toEqual({ status: 'alive' });
  }

  /** After the database is back: healthz and readyz answer 200 within the bound, with no restart. */
  async function expectRecovery(): Promise<void> {
    const back = performance.now();
    for (;;) {
      const [health, ready] = await Promise.all([request('/api/v2/healthz'), request('/api/v2/readyz')]);
      if (health.res.status === 200 && ready.res.status === 200) break;
      expect(performance.now() - back).toBeLessThan(RECOVERY_BOUND_MS);
      await new Promise((r) => setTimeout(r, 100));
    }
    // A request that reaches the database answers as usual (an unknown code: 404, not 503).
    const after = await precheck();
    expect(after.res.status).toBe(404);
    expect(after.body.error.code).toBe('install_code_not_found');
  }

  it('is ready while the database answers', async () => {
    const ready = await request('/api/v2/readyz');
    expect(ready.res.status).toBe(200);
    expect(ready.body).toEqual({ data: { status: 'ready' }, meta: { message: expect.any(String) } });
    expect((await request('/api/v2/healthz')).res.status).toBe(200);
  });

  it('refused connections: quick 503 service_unavailable with Retry-After, then normal answers once it is back', async () => {
    await proxy.refuse();
    await expectFastUnavailable();
    await proxy.forward();
    await expectRecovery();
  });

  it('dropped connections (accepted, then closed): quick 503, then recovery', async () => {
    proxy.drop();
    await expectFastUnavailable();
    await proxy.forward();
    await expectRecovery();
  });

  it('a stalled database (connections open, nothing answered): quick 503, readiness fails, then recovery', async () => {
    proxy.stall();
    await expectFastUnavailable();
    await proxy.forward();
    await expectRecovery();
  });
});

describe.skipIf(!adminUrl)('a PostgreSQL database that does not exist', () => {
  it('answers 503 service_unavailable (SQLSTATE 3D000), never 500', async () => {
    const url = new URL(adminUrl!);
    url.pathname = '/slowdns_no_such_database_ever';
    const database = await openDatabase({ databaseUrl: url.toString(), dataDir: 'unused' });
    const { app } = createApp({
      db: database.db,
      availability: database.availability,
      clock: systemClock,
      config: loadConfig({}),
      logger: createLogger('silent'),
      keys: await testKeyRing(),
    });
    const res = await app.request('/api/v2/healthz');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await res.json()).error.code).toBe('service_unavailable');
    await database.close();
  });
});
