import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import { createLogger } from '../../src/logger.js';
import { createTestApp, testKeyRing, type TestApp } from '../support/test-app.js';
import { testPgliteSeed } from '../support/test-database.js';

describe('GET /api/v2/healthz', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers 200 ok in the v2 envelope after a database round trip', async () => {
    const res = await t.request('/api/v2/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { status: 'ok' }, meta: { message: expect.any(String) } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  /** The app with a shutdown drain the test starts. */
  function drainableApp() {
    const drain = { on: false };
    const { app } = createApp({
      db: t.database.db,
      availability: t.database.availability,
      isDraining: () => drain.on,
      clock: t.clock,
      config: t.config,
      logger: createLogger('silent'),
      keys: t.keys,
    });
    return { app, drain };
  }

  it('livez answers 200 alive, during the shutdown drain too', async () => {
    const { app, drain } = drainableApp();
    const live = await app.request('/api/v2/livez');
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ data: { status: 'alive' }, meta: { message: expect.any(String) } });
    drain.on = true;
    expect((await app.request('/api/v2/livez')).status).toBe(200);
  });

  it('readyz answers 200 ready while the database answers', async () => {
    const { app } = drainableApp();
    const ready = await app.request('/api/v2/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ data: { status: 'ready' }, meta: { message: expect.any(String) } });
  });

  it('readyz answers 503 during the shutdown drain', async () => {
    const { app, drain } = drainableApp();
    drain.on = true;
    const drainingAnswer = await app.request('/api/v2/readyz');
    expect(drainingAnswer.status).toBe(503);
    expect(drainingAnswer.headers.get('retry-after')).toBe('1');
    expect((await drainingAnswer.json()).error).toEqual({
      code: 'service_unavailable',
      message: expect.stringMatching(/shutting down/),
    });
  });

  it('while the database is known to be away, what needs no database still answers: the probes, the contract, the keys, the assets and the shell client', async () => {
    const away = { available: false, check: async () => false, reportFailure: () => {}, close: () => {} };
    const { app } = createApp({
      db: t.database.db,
      availability: away,
      clock: t.clock,
      config: t.config,
      logger: createLogger('silent'),
      keys: t.keys,
    });
    for (const path of [
      '/api/v2/livez',
      '/openapi.json',
      '/.well-known/jwks.json',
      '/docs',
      '/slowdns/app.js',
      '/slowdns/app.css',
      '/slowdns/activate.sh',
      '/slowdns/activate.sh.sha256',
    ]) {
      expect([path, (await app.request(path)).status]).toEqual([path, 200]);
    }
    for (const path of ['/api/v2/healthz', '/api/v2/readyz', '/slowdns']) {
      const res = await app.request(path);
      expect([path, res.status, res.headers.get('retry-after')]).toEqual([path, 503, '1']);
    }
  });

  it('echoes a sane X-Request-Id and replaces an insane one', async () => {
    const kept = await t.request('/api/v2/healthz', { headers: { 'x-request-id': 'req-123.abc' } });
    expect(kept.headers.get('x-request-id')).toBe('req-123.abc');
    const replaced = await t.request('/api/v2/healthz', { headers: { 'x-request-id': 'bad id <script>' } });
    expect(replaced.headers.get('x-request-id')).not.toContain('script');
  });

  it('logs one JSON line per request with method, route, status, duration and request id', async () => {
    t.logs.length = 0;
    await t.request('/api/v2/healthz', { headers: { 'x-request-id': 'log-check-1' } });
    const lines = t.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'GET', route: '/api/v2/healthz', status: 200, request_id: 'log-check-1' });
    expect(typeof lines[0].duration_ms).toBe('number');
  });
});

describe('GET /api/v2/healthz with the database gone', () => {
  it('answers 503 service_unavailable when PostgreSQL cannot be reached', async () => {
    // A port nothing listens on: a real, refused connection.
    const database = await openDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', dataDir: 'unused' });
    const { app } = createApp({
      db: database.db,
      clock: systemClock,
      config: loadConfig({}),
      logger: createLogger('silent'),
      keys: await testKeyRing(),
    });
    const res = await app.request('/api/v2/healthz');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toEqual({ error: { code: 'service_unavailable', message: expect.any(String) } });
    await database.close();
  });

  it('answers 503 when the embedded database has been closed', async () => {
    const database = await openDatabase({ dataDir: 'memory://', pgliteSeed: await testPgliteSeed() });
    const { app } = createApp({
      db: database.db,
      availability: database.availability,
      clock: systemClock,
      config: loadConfig({}),
      logger: createLogger('silent'),
      keys: await testKeyRing(),
    });
    await database.close();
    const res = await app.request('/api/v2/healthz');
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe('service_unavailable');
    // Readiness fails with it; liveness does not touch the database.
    const notReady = await app.request('/api/v2/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.headers.get('retry-after')).toBe('1');
    expect((await notReady.json()).error.code).toBe('service_unavailable');
    expect((await app.request('/api/v2/livez')).status).toBe(200);
  });
});
