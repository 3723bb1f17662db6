// Read replicas (DESIGN §21) against a real streaming replica: a primary and its standby on 127.0.0.1
// (test/replica/replica-pair.sh: initdb, pg_basebackup -R), the compiled server on DATABASE_URL (the
// primary) and DATABASE_READ_URL (the standby). The standby's replay is paused with pg_wal_replay_pause():
// what the primary writes then is missing from the replica, which shows which database each read used.
// Runs once per CI run, as a step of its own (.ci/run: REPLICA_TEST=1; about 25 s); skipped otherwise, and
// where no PostgreSQL server binaries are installed.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machine } from '../support/install-flow.js';
import { spawnService, TEST_KEK, type SpawnedService } from '../support/spawn-service.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pair = join(root, 'test/replica/replica-pair.sh');
const installed = existsSync('/usr/lib/postgresql') && readdirSync('/usr/lib/postgresql').length > 0;
const enabled = process.env.REPLICA_TEST === '1' && installed;
const run = promisify(execFile);

const ADMIN_TOKEN = randomBytes(24).toString('base64url');
const PUBLIC_BASE_URL = 'http://localhost:8080';
/** DATABASE_READ_MAX_LAG_SECONDS here: long enough to read a paused replica, short enough to wait past. */
const MAX_LAG_SECONDS = 6;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe.skipIf(!enabled)('reads on a streaming replica (DATABASE_READ_URL)', () => {
  const dir = join(tmpdir(), `slowdns-replica-${randomBytes(4).toString('hex')}`);
  const port = 7500 + Math.floor(Math.random() * 45) * 2;
  const metricsPort = 7599;
  const primaryUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const standbyUrl = `postgres://postgres@127.0.0.1:${port + 1}/postgres`;
  let standby: postgres.Sql;
  let service: SpawnedService | undefined;
  let base = '';

  beforeAll(async () => {
    await run(pair, ['start', dir, String(port)], { timeout: 60_000 });
    standby = postgres(standbyUrl, { max: 1, onnotice: () => {} });
    service = spawnService({
      DATABASE_URL: primaryUrl,
      DATABASE_READ_URL: standbyUrl,
      DATABASE_READ_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
      ADMIN_TOKEN,
      KEY_ENCRYPTION_KEY: TEST_KEK,
      PUBLIC_BASE_URL,
      METRICS_PORT: String(metricsPort),
    });
    await service.logged('ready', 60_000);
    base = `http://127.0.0.1:${await service.port}`;
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await standby?.end();
    await run(pair, ['stop', dir], { timeout: 30_000 }).catch(() => {});
  }, 60_000);

  const admin = (path: string, token: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${base}/api/v2/admin/${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  const makeToken = async (name: string, scope: 'read' | 'write') => {
    const res = await admin('tokens', ADMIN_TOKEN, { method: 'POST', body: { name, scope } });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    return { id: data.operator_token_id as string, token: data.token as string };
  };
  /** The names of the tokens whose creation the events list shows to `token`'s operator. */
  const tokensCreatedSeenBy = async (token: string): Promise<string[]> => {
    const res = await admin('events?type=operator_token.created', token);
    expect(res.status).toBe(200);
    const { data } = await res.json();
    return data.items.map((e: { data: { name: string } }) => e.data.name);
  };
  const lagGauge = async (): Promise<number | undefined> => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('slowdns_database_replica_lag_seconds '));
    return line === undefined ? undefined : Number(line.split(' ')[1]);
  };
  const ON_REPLICA = 'reads on the replica';
  const ON_PRIMARY = 'reads on the primary: the replica is not usable';
  /** The log's lines about where reads go, in order: each change said once, so no line repeats the one before it. */
  const readsLog = () =>
    service!.stdout.flatMap((line) => {
      const msg = (JSON.parse(line) as { msg?: string }).msg;
      return msg === ON_REPLICA || msg === ON_PRIMARY ? [msg] : [];
    });
  const saidOnceEach = () => readsLog().every((msg, i, all) => i === 0 || all[i - 1] !== msg);
  const readsNowOn = (msg: string) => async () => (readsLog().at(-1) === msg ? true : undefined);

  it('an admin list reads the replica: while its replay is paused it lags, and the lag gauge grows', async () => {
    await until('reads on the replica', readsNowOn(ON_REPLICA));
    const reader = await makeToken('reader', 'read');
    await until('the reader token on the replica', async () =>
      (await standby`select 1 from operator_tokens where id = ${reader.id}`).length ? true : undefined,
    );
    expect(await tokensCreatedSeenBy(reader.token)).toContain('reader');
    await standby`select pg_wal_replay_pause()`;
    await makeToken('made-while-paused', 'read');
    // The reader's list comes from the paused replica: the new token's event is not there yet.
    expect(await tokensCreatedSeenBy(reader.token)).not.toContain('made-while-paused');
    // root wrote a moment ago: its own reads stay on the primary for 30 s, and see what it did.
    expect(await tokensCreatedSeenBy(ADMIN_TOKEN)).toContain('made-while-paused');
    await until('a lag gauge above 0', async () => (((await lagGauge()) ?? 0) > 0 ? true : undefined));
  });

  it('while the replica lags, a token revoked on the primary is refused at once, a new one is accepted, and the install steps and the page read the primary', async () => {
    const doomed = await makeToken('doomed', 'read');
    const fresh = await makeToken('fresh', 'read');
    expect((await admin(`tokens/${doomed.id}`, ADMIN_TOKEN, { method: 'DELETE' })).status).toBe(200);
    expect((await admin('events', doomed.token)).status).toBe(401);
    expect((await admin('events', fresh.token)).status).toBe(200);
    // A code issued on the primary is at once known to the page's status and to precheck.
    const page = await fetch(`${base}/slowdns`);
    const cookie = /slowdns_browser=[^;]+/.exec(page.headers.get('set-cookie') ?? '')?.[0] ?? '';
    const browser = { cookie, origin: PUBLIC_BASE_URL, 'sec-fetch-site': 'same-origin' };
    const issued = await fetch(`${base}/api/v2/slowdns/code/issue`, { method: 'POST', headers: browser });
    expect(issued.status).toBe(201);
    const { data: code } = await issued.json();
    const status = await fetch(`${base}/api/v2/slowdns/code/status`, { headers: browser });
    expect(status.status).toBe(200);
    expect(JSON.stringify(await status.json())).toContain(code.install_code_id);
    const precheck = await fetch(`${base}/api/v2/slowdns/install/precheck`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        install_code: code.install_code,
        ...machine,
        product: 'slowdns',
        installer_version: '2026.11.20.1',
      }),
    });
    expect(precheck.status).toBe(200);
    // None of it reached the replica.
    expect(await standby`select 1 from install_codes where id = ${code.install_code_id}`).toHaveLength(0);
  });

  it('past DATABASE_READ_MAX_LAG_SECONDS reads go to the primary, said once in the log, and back to the replica once it catches up', async () => {
    const reader = await makeToken('late-reader', 'read');
    await until('reads on the primary', readsNowOn(ON_PRIMARY), (MAX_LAG_SECONDS + 10) * 1000);
    expect(await tokensCreatedSeenBy(reader.token)).toContain('made-while-paused');
    expect(saidOnceEach()).toBe(true);
    await standby`select pg_wal_replay_resume()`;
    await until('reads on the replica again', readsNowOn(ON_REPLICA));
    expect(await tokensCreatedSeenBy(reader.token)).toContain('made-while-paused');
    expect((await lagGauge()) ?? Number.NaN).toBeLessThanOrEqual(MAX_LAG_SECONDS);
  });

  it('a standby that stopped receiving WAL: its lag is measured against the primary, and reads go to the primary', async () => {
    await until('reads on the replica', readsNowOn(ON_REPLICA));
    const reader = await makeToken('detached-reader', 'read');
    await until('the reader token on the replica', async () =>
      (await standby`select 1 from operator_tokens where id = ${reader.id}`).length ? true : undefined,
    );
    // The WAL receiver detached (no primary to stream from): what it received it has replayed, so the
    // standby alone sees no lag; only the primary knows what it misses.
    const [{ primary_conninfo: conninfo }] = (await standby`show primary_conninfo`) as unknown as [
      { primary_conninfo: string },
    ];
    await standby`alter system set primary_conninfo = ''`;
    await standby`select pg_reload_conf()`;
    await until('the WAL receiver gone', async () =>
      (await standby`select 1 from pg_stat_wal_receiver`).length === 0 ? true : undefined,
    );
    await makeToken('written-while-detached', 'read');
    await until('a lag gauge above 0', async () => (((await lagGauge()) ?? 0) > 0 ? true : undefined));
    await until('reads on the primary', readsNowOn(ON_PRIMARY), (MAX_LAG_SECONDS + 10) * 1000);
    expect(await tokensCreatedSeenBy(reader.token)).toContain('written-while-detached');
    await standby.unsafe(`alter system set primary_conninfo = '${conninfo.replaceAll("'", "''")}'`);
    await standby`select pg_reload_conf()`;
    await until('reads on the replica again', readsNowOn(ON_REPLICA), 30_000);
    expect((await lagGauge()) ?? Number.NaN).toBeLessThanOrEqual(MAX_LAG_SECONDS);
    expect(saidOnceEach()).toBe(true);
  });

  it('a stopped replica: reads go to the primary at once, the lag gauge is NaN', async () => {
    const reader = await makeToken('after-stop', 'read');
    await standby.end();
    await run(pair, ['stop-standby', dir], { timeout: 30_000 });
    // The very next read falls back, whether or not the probe has noticed yet.
    const res = await admin('events?type=operator_token.created', reader.token);
    expect(res.status).toBe(200);
    expect((await res.json()).data.items.map((e: { data: { name: string } }) => e.data.name)).toContain('after-stop');
    await until('the lag gauge NaN', async () => (Number.isNaN(await lagGauge()) ? true : undefined));
    await until('reads on the primary, said in the log', readsNowOn(ON_PRIMARY));
    expect(saidOnceEach()).toBe(true);
  });
});
