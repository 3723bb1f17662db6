import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { generatePrivateJwk } from '../../src/domain/tokens/signing-keys.js';
import { spawnService, TEST_KEK } from '../support/spawn-service.js';
import { startTcpProxy, startTcpProxyFor, type TcpProxy } from '../support/tcp-proxy.js';

// The real process, as `npm start` runs it (the compiled server). Starting one takes a second or more
// on a busy machine: a generous per-test limit, no time asserted.
const SPAWN_TIMEOUT_MS = 180_000;
const adminUrl = process.env.DATABASE_URL;
const get = async (port: number, path: string) => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return {
    status: res.status,
    body: (await res.json()) as { data?: { status: string }; error?: { code: string; message: string } },
  };
};
const stderrLines = (text: string) => text.split('\n').filter(Boolean);
const lockOwner = (dataDir: string) =>
  JSON.parse(readFileSync(join(dataDir, 'slowdns.lock'), 'utf8')) as { host: string; pid: number };

describe.skipIf(!adminUrl)('started while PostgreSQL is down', { timeout: SPAWN_TIMEOUT_MS }, () => {
  let scratch: ScratchDatabase;
  let proxy: TcpProxy;
  beforeAll(async () => {
    scratch = await createScratchDatabase(adminUrl!, 'slowdns_startup');
    proxy = await startTcpProxyFor(scratch.url);
  });
  afterAll(async () => {
    await proxy?.close();
    await scratch?.drop();
  });

  it('listens at once (livez 200, readyz and the API 503), retries with one log line per attempt, and is ready once the database appears', async () => {
    await proxy.refuse();
    const url = new URL(proxy.urlFor(scratch.url));
    url.password = 'not-logged-pw';
    const service = spawnService({ DATABASE_URL: url.toString(), KEY_ENCRYPTION_KEY: TEST_KEK });
    try {
      const port = await service.port;
      expect(await get(port, '/api/v2/livez')).toEqual({
        status: 200,
        body: { data: { status: 'alive' }, meta: { message: expect.any(String) } },
      });
      for (const path of ['/api/v2/readyz', '/api/v2/healthz', '/.well-known/jwks.json']) {
        const answer = await get(port, path);
        expect(answer.status).toBe(503);
        expect(answer.body.error?.code).toBe('service_unavailable');
      }
      const attempt = await service.logged('database not ready, retrying');
      expect(attempt).toMatchObject({
        level: 'warn',
        attempt: 1,
        retry_in_ms: expect.any(Number),
        code: 'ECONNREFUSED',
      });
      expect(attempt.database).toBe(`postgres://127.0.0.1:${proxy.port}${new URL(scratch.url).pathname}`);
      await service.logged('database not ready, retrying'); // still retrying, still up
      await proxy.forward();
      await service.logged('ready', 30_000);
      expect((await get(port, '/api/v2/readyz')).status).toBe(200);
      expect((await get(port, '/api/v2/healthz')).status).toBe(200);
      expect(service.stdout.join('\n')).not.toContain('not-logged-pw');
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });
});

describe('one owner per embedded DATA_DIR', { timeout: SPAWN_TIMEOUT_MS }, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'slowdns-lock-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a second server, or npm run prune, on a folder in use exits non-zero with one line naming it and the owner, and the first keeps serving its data', async () => {
    const dataDir = join(dir, 'data');
    const first = spawnService({ DATA_DIR: dataDir });
    try {
      const port = await first.port;
      await first.logged('ready');
      expect(lockOwner(dataDir)).toMatchObject({ host: hostname(), pid: first.process.pid });
      // Data written by the first: a browser session and an issued code.
      const page = await fetch(`http://127.0.0.1:${port}/slowdns`);
      const cookie = /slowdns_browser=[^;]+/.exec(page.headers.get('set-cookie') ?? '')![0];
      const issued = await fetch(`http://127.0.0.1:${port}/api/v2/slowdns/code/issue`, {
        method: 'POST',
        headers: { cookie, origin: 'http://localhost:8080' },
      });
      expect(issued.status).toBe(201);

      for (const command of [['scripts/start.mjs'], ['src/cli/main.ts', 'prune']]) {
        const second = spawnService({ DATA_DIR: dataDir }, command);
        expect(await second.exited).not.toBe(0);
        const lines = stderrLines(second.stderr());
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(
          `slowdns: DATA_DIR ${dataDir} is in use by process ${first.process.pid} on ${hostname()} (lock file ${join(dataDir, 'slowdns.lock')}, refreshed `,
        );
        expect(lines[0]).toMatch(/ s ago\); stop it first, or point DATA_DIR elsewhere$/);
      }
      // The first still serves its data: the session it issued for still works (a second code is issued).
      const again = await fetch(`http://127.0.0.1:${port}/api/v2/slowdns/code/issue`, {
        method: 'POST',
        headers: { cookie, origin: 'http://localhost:8080' },
      });
      expect(again.status).toBe(201);
      expect((await get(port, '/api/v2/readyz')).status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
  });

  it('a stale lock left by a killed process is taken over', async () => {
    const dataDir = join(dir, 'stale');
    const killed = spawnService({ DATA_DIR: dataDir });
    await killed.logged('ready');
    killed.process.kill('SIGKILL');
    await killed.exited;
    expect(lockOwner(dataDir).pid).toBe(killed.process.pid);
    const restarted = spawnService({ DATA_DIR: dataDir });
    try {
      const port = await restarted.port;
      await restarted.logged('ready');
      expect((await get(port, '/api/v2/readyz')).status).toBe(200);
      expect(lockOwner(dataDir).pid).toBe(restarted.process.pid);
    } finally {
      expect(await restarted.stop()).toBe(0);
    }
  });
});

describe('start-up errors are one clear line, early', { timeout: SPAWN_TIMEOUT_MS }, () => {
  it('a malformed SIGNING_KEYS stops the start before the database is opened', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 1 });
    try {
      const service = spawnService({
        DATABASE_URL: proxy.urlFor('postgres://postgres@127.0.0.1:5432/postgres'),
        SIGNING_KEYS: '{"keys":[{"kty":"oct","k":"x"}]}',
      });
      expect(await service.exited).toBe(1);
      expect(stderrLines(service.stderr())).toEqual([expect.stringMatching(/^slowdns: invalid SIGNING_KEYS: /)]);
      expect(proxy.connections).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('on PostgreSQL without KEY_ENCRYPTION_KEY or SIGNING_KEYS the start is refused with one line saying what to set, before the database is opened', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 1 });
    try {
      const service = spawnService({ DATABASE_URL: proxy.urlFor('postgres://postgres@127.0.0.1:5432/postgres') });
      expect(await service.exited).toBe(1);
      expect(stderrLines(service.stderr())).toEqual([
        expect.stringMatching(
          /^slowdns: KEY_ENCRYPTION_KEY is required on PostgreSQL .*set KEY_ENCRYPTION_KEY .*SIGNING_KEYS.*REQUIRE_KEY_ENCRYPTION=false/,
        ),
      ]);
      expect(proxy.connections).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('a busy port is `slowdns: port N is already in use`, before the database is opened', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 1 });
    try {
      const service = spawnService({
        PORT: String(port),
        DATABASE_URL: proxy.urlFor('postgres://postgres@127.0.0.1:5432/postgres'),
        KEY_ENCRYPTION_KEY: TEST_KEK,
      });
      expect(await service.exited).toBe(1);
      expect(stderrLines(service.stderr())).toEqual([`slowdns: port ${port} is already in use`]);
      expect(proxy.connections).toBe(0);
    } finally {
      holder.close();
      await proxy.close();
    }
  });

  it('a DATA_DIR that cannot be a folder is one line naming it, never [object Object]', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'slowdns-file-'));
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    try {
      const service = spawnService({ DATA_DIR: join(file, 'data') });
      expect(await service.exited).toBe(1);
      const lines = stderrLines(service.stderr());
      expect(lines).toEqual([expect.stringContaining(`slowdns: DATA_DIR ${join(file, 'data')} `)]);
      expect(lines[0]).not.toContain('[object Object]');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the start says in one line how the signing keys are kept', { timeout: SPAWN_TIMEOUT_MS }, () => {
  /** The `signing key protection` line of a service started with `env` (on PostgreSQL, one that is never reached). */
  async function protectionLine(env: Record<string, string>) {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 1 });
    const service = spawnService({
      ...env,
      ...(env.DATABASE_URL === '' ? { DATABASE_URL: proxy.urlFor('postgres://postgres@127.0.0.1:5432/postgres') } : {}),
    });
    try {
      const line = await service.logged('signing key protection');
      return {
        level: line.level,
        mode: line.mode,
        detail: line.detail,
        lines: service.stdout.filter((l) => l.includes('signing key protection')).length,
      };
    } finally {
      await service.stop();
      await proxy.close();
    }
  }

  it('embedded by default: in clear, a warning saying so and what to set', async () => {
    expect(await protectionLine({ DATA_DIR: 'memory://' })).toEqual({
      level: 'warn',
      mode: 'clear',
      detail: expect.stringMatching(
        /REQUIRE_KEY_ENCRYPTION=false, the default on the embedded database.*set KEY_ENCRYPTION_KEY/,
      ),
      lines: 1,
    });
  });

  it('on PostgreSQL one start line says how the keys are kept: sealed with KEY_ENCRYPTION_KEY, in clear with the explicit opt-out, none in the database with SIGNING_KEYS', async () => {
    const [sealed, optedOut, configured] = await Promise.all([
      protectionLine({ DATABASE_URL: '', KEY_ENCRYPTION_KEY: TEST_KEK }),
      protectionLine({ DATABASE_URL: '', REQUIRE_KEY_ENCRYPTION: 'false' }),
      protectionLine({ DATABASE_URL: '', SIGNING_KEYS: JSON.stringify({ keys: [await generatePrivateJwk()] }) }),
    ]);
    expect(sealed).toEqual({
      level: 'info',
      mode: 'sealed',
      detail: expect.stringMatching(/KEY_ENCRYPTION_KEY.*REQUIRE_KEY_ENCRYPTION=true/),
      lines: 1,
    });
    expect(optedOut).toEqual({
      level: 'warn',
      mode: 'clear',
      detail: expect.stringMatching(/REQUIRE_KEY_ENCRYPTION=false.*set KEY_ENCRYPTION_KEY/),
      lines: 1,
    });
    expect(configured).toEqual({
      level: 'info',
      mode: 'configured',
      detail: expect.stringMatching(/SIGNING_KEYS/),
      lines: 1,
    });
  });
});

describe('RATE_LIMIT_PROFILE at start', { timeout: SPAWN_TIMEOUT_MS }, () => {
  it('development says so in one line naming the variable', async () => {
    const service = spawnService({ DATA_DIR: 'memory://', RATE_LIMIT_PROFILE: 'development' });
    try {
      const line = await service.logged('rate limits scaled for development');
      expect(line).toMatchObject({
        level: 'warn',
        rate_limit_profile: 'development',
        quota_factor: 100,
        detail: expect.stringContaining('RATE_LIMIT_PROFILE=development'),
      });
      await service.logged('ready');
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  it('development with NODE_ENV=production is refused at start with one line', async () => {
    const refused = spawnService({ DATA_DIR: 'memory://', RATE_LIMIT_PROFILE: 'development', NODE_ENV: 'production' });
    expect(await refused.exited).toBe(1);
    expect(stderrLines(refused.stderr())).toEqual([
      'slowdns: invalid RATE_LIMIT_PROFILE: development is refused when NODE_ENV=production',
    ]);
  });
});
