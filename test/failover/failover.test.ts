// Losing the database primary, losing nothing (DESIGN §20): a pg_auto_failover formation (a monitor and
// two nodes on 127.0.0.1, the tuned timeouts), the compiled server on the multi-host URL `pg_autoctl show
// uri` prints, 8 installers through the TypeScript client and one through activate.sh, and a kill -9 of
// the primary mid-run. Runs once per CI run, as a step of its own (.ci/run: FAILOVER_TEST=1); skipped
// otherwise, and where Debian's postgresql-15-auto-failover and pg-auto-failover-cli are missing.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient, createClient, IDEMPOTENCY_KEY, runInstall } from '../../clients/typescript/src/index.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { hostUrl, parseDatabaseUrl } from '../../src/db/database-url.js';
import { INSTALLER_VERSION, randomMachine } from '../support/install-flow.js';
import { spawnService, TEST_KEK, type SpawnedService } from '../support/spawn-service.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const formation = join(root, 'test/failover/formation.sh');
const installed = spawnSync('sh', ['-c', 'command -v pg_autoctl']).status === 0;
const enabled = process.env.FAILOVER_TEST === '1' && installed;
const run = promisify(execFile);

const INSTALLERS = 8;
/** The primary is killed this long after the installers start. */
const KILL_AFTER_MS = 6000;
/** No installer starts a new install this long after the kill; those under way finish. */
const STOP_STARTING_AFTER_KILL_MS = 18_000;
/** Each install's own work, between activate and confirm. */
const INSTALL_MS = 1000;
const PUBLIC_BASE_URL = 'http://localhost:8080';

interface Confirmed {
  activationId: string;
  installToken: string;
  at: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!enabled)('losing the database primary (pg_auto_failover, kill -9)', () => {
  const dir = join(tmpdir(), `slowdns-failover-${randomBytes(4).toString('hex')}`);
  const basePort = 7400 + Math.floor(Math.random() * 50) * 4;
  let url = '';
  let service: SpawnedService | undefined;
  let base = '';

  beforeAll(async () => {
    url = (await run(formation, ['start', dir, String(basePort)], { timeout: 150_000 })).stdout.trim();
    // As an operator pastes it: the URL pg_autoctl prints (no user in it: PGUSER, as libpq reads it).
    service = spawnService({
      DATABASE_URL: url,
      PGUSER: 'postgres',
      KEY_ENCRYPTION_KEY: TEST_KEK,
      ADMIN_TOKEN,
      PUBLIC_BASE_URL,
      // Every installer comes from 127.0.0.1: the per-address quotas are raised, as for trying it locally.
      RATE_LIMIT_PROFILE: 'development',
      RATE_LIMIT_PROFILE_FORCE: 'true',
    });
    await service.logged('ready', 60_000);
    base = `http://127.0.0.1:${await service.port}`;
  }, 240_000);

  afterAll(async () => {
    await service?.stop();
    // Torn down even when the test failed.
    await run(formation, ['stop', dir], { timeout: 60_000 }).catch(() => {});
  }, 90_000);

  /** A code from a new browser session, over HTTP as the page gets one. */
  async function issueCode(): Promise<string> {
    const page = await fetch(`${base}/slowdns`);
    const cookie = /slowdns_browser=[^;]+/.exec(page.headers.get('set-cookie') ?? '')?.[0];
    const res = await fetch(`${base}/api/v2/slowdns/code/issue`, {
      method: 'POST',
      headers: { cookie: cookie ?? '', origin: PUBLIC_BASE_URL, 'sec-fetch-site': 'same-origin' },
    });
    if (res.status !== 201) throw new Error(`issue answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { data: { install_code: string } }).data.install_code;
  }

  it('follows the promoted standby: every 200 confirm is on the new primary, no token used twice, no 500, every install completes', {
    timeout: 240_000,
  }, async () => {
    const statuses = new Map<number, number>();
    /** Confirms answered 200: when each was sent and answered. */
    const confirms: { sentAt: number; answeredAt: number }[] = [];
    const countingFetch = async (request: Request) => {
      const sentAt = Date.now();
      const response = await fetch(request);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status === 200 && request.url.endsWith('/install/confirm'))
        confirms.push({ sentAt, answeredAt: Date.now() });
      return response;
    };
    const client = createClient({
      baseUrl: base,
      fetch: countingFetch,
      retry: { maxRetries: 60, baseDelayMs: 200, maxDelayMs: 1000 },
    });
    const codes = await Promise.all(Array.from({ length: INSTALLERS * 16 }, () => issueCode()));
    const firstPrimary = (await run(formation, ['primary', dir])).stdout.trim();

    const confirmed: Confirmed[] = [];
    const failures: unknown[] = [];
    let killedAt = Number.POSITIVE_INFINITY;
    let stopStarting = false;
    const installer = async () => {
      while (!stopStarting) {
        const code = codes.pop();
        if (!code) return;
        const result = await runInstall({
          client,
          installCode: code,
          machine: randomMachine(),
          installerVersion: INSTALLER_VERSION,
          requestedRef: 'main',
          signals: [],
          confirmAddress: async () => ({ hostname: 'failover.example', public_ip: '203.0.113.7' }),
          install: async () => void (await sleep(INSTALL_MS)),
        });
        if (result.outcome === 'confirmed')
          confirmed.push({
            activationId: result.activation.activation_id,
            installToken: result.activation.install_token,
            at: Date.now(),
          });
        else failures.push(result);
      }
    };

    // activate.sh, started just before the kill, with its install step running across it.
    const shellDir = mkdtempSync(join(tmpdir(), 'slowdns-failover-sh-'));
    writeFileSync(join(shellDir, 'machine-id'), `${randomBytes(16).toString('hex')}\n`);
    const shell = async (): Promise<{ code: number | null; stderr: string }> => {
      await sleep(KILL_AFTER_MS - 1500);
      const child = spawn('sh', [join(root, 'clients/shell/activate.sh'), 'run', '--', 'sh', '-c', 'sleep 3'], {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: shellDir,
          SLOWDNS_URL: base,
          SLOWDNS_INSTALL_CODE: await issueCode(),
          SLOWDNS_STATE_FILE: join(shellDir, 'state'),
          SLOWDNS_MACHINE_ID_FILE: join(shellDir, 'machine-id'),
          SLOWDNS_SSH_FINGERPRINT: `SHA256:${randomBytes(32).toString('base64').replace(/=+$/, '')}`,
          SLOWDNS_HOSTNAME: 'failover-sh.example',
          SLOWDNS_PUBLIC_IP: '203.0.113.8',
          SLOWDNS_MAX_RETRIES: '40',
          SLOWDNS_RETRY_BASE_SECONDS: '1',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      return { code, stderr };
    };

    // An operator's automation creating fleet codes back to back across the kill, each with its own
    // Idempotency-Key (the admin client's), retried with it through the failover.
    const created: { id: string }[] = [];
    const adminFailures: unknown[] = [];
    const attemptsByKey = new Map<string, number>();
    const admin = createAdminClient({
      baseUrl: base,
      token: ADMIN_TOKEN,
      retry: { maxRetries: 60, baseDelayMs: 200, maxDelayMs: 1000 },
      fetch: async (request) => {
        const key = request.headers.get(IDEMPOTENCY_KEY) ?? '';
        attemptsByKey.set(key, (attemptsByKey.get(key) ?? 0) + 1);
        return countingFetch(request);
      },
    });
    const operator = async () => {
      while (!stopStarting) {
        const { data, error } = await admin
          .POST('/api/v2/admin/install-codes', {
            body: { uses: 3, tags: { run: 'failover' }, require_approval: false },
          })
          .catch((thrown: unknown) => ({ data: undefined, error: thrown }));
        if (data) created.push({ id: data.data.install_code_id });
        else adminFailures.push(error);
        await sleep(20);
      }
    };

    // The monitor's own view: when did it report another node primary (the formation's promotion time)?
    let promotedAt = Number.NaN;
    const watchPromotion = async () => {
      while (Number.isNaN(promotedAt) && Date.now() - killedAt < 90_000) {
        const now = (await run(formation, ['primary', dir]).catch(() => ({ stdout: '' }))).stdout.trim();
        if (now && now !== firstPrimary) promotedAt = Date.now();
        else await sleep(100);
      }
    };
    const kill = async () => {
      await sleep(KILL_AFTER_MS);
      const killing = Date.now();
      await run(formation, ['kill', dir, firstPrimary]);
      killedAt = killing;
      await watchPromotion();
      await sleep(Math.max(0, killedAt + STOP_STARTING_AFTER_KILL_MS - Date.now()));
      stopStarting = true;
    };

    const [, shellResult] = await Promise.all([
      Promise.all(Array.from({ length: INSTALLERS }, installer)),
      shell(),
      kill(),
      operator(),
    ]);
    rmSync(shellDir, { recursive: true, force: true });

    const newPrimary = (await run(formation, ['primary', dir])).stdout.trim();
    const parsed = parseDatabaseUrl(url);
    const host = parsed.hosts.find((h) => String(h.port) === newPrimary)!;
    const check = postgres(hostUrl(parsed, host, { plain: true }), {
      max: 1,
      prepare: false,
      username: 'postgres',
      onnotice: () => {},
    });
    let stored: Map<string, string>;
    let confirmEvents: { activation_id: string; count: number }[];
    let fleetCodes: Set<string>;
    try {
      fleetCodes = new Set(
        (await check<{ id: string }[]>`select id from install_codes where operator is not null`).map((r) => r.id),
      );
      const rows = await check<{ id: string; status: string }[]>`select id, status from activations`;
      stored = new Map(rows.map((r) => [r.id, r.status]));
      confirmEvents = await check<{ activation_id: string; count: number }[]>`
        select activation_id, count(*)::int as count from events where type = 'activation.confirmed' group by 1`;
    } finally {
      await check.end();
    }

    const afterKill = confirmed.filter((c) => c.at > killedAt);
    // The first confirm sent after the kill and answered 200: written on the new primary.
    const firstAfter = Math.min(...confirms.filter((c) => c.sentAt > killedAt).map((c) => c.answeredAt));
    const gapMs = firstAfter - killedAt;
    const promotionMs = promotedAt - killedAt;
    console.log(
      `failover: primary ${firstPrimary} killed; the monitor reported ${newPrimary} primary after ${(promotionMs / 1000).toFixed(1)} s; ` +
        `first confirm sent after the kill answered 200 after ${(gapMs / 1000).toFixed(1)} s; installs confirmed ${confirmed.length} ` +
        `(${afterKill.length} after the kill), failed ${failures.length}; answers by status ${JSON.stringify(Object.fromEntries(statuses))}; ` +
        `activate.sh exit ${shellResult.code}; fleet codes created ${created.length} (${[...attemptsByKey.values()].filter((n) => n > 1).length} retried with their key), failed ${adminFailures.length}`,
    );
    if (shellResult.code !== 0) console.log(shellResult.stderr);
    for (const line of service!.stdout.filter((l) => /database (primary|unavailable|available)/.test(l)))
      console.log(line);
    const tokens = new Set(confirmed.map((c) => c.installToken));
    expect({
      failed: failures.length,
      answered500: statuses.get(500) ?? 0,
      lost: confirmed.filter((c) => stored.get(c.activationId) !== 'confirmed').length,
      tokenUsedTwice: confirmed.length - tokens.size,
      confirmedTwice: confirmEvents.filter((e) => e.count > 1).length,
      shellExit: shellResult.code,
      confirmedAfterKill: afterKill.length > 0,
      movedPrimary: newPrimary !== firstPrimary,
      adminCreatesFailed: adminFailures.length,
      // A create whose attempt the kill failed (its key sent more than once), made once all the same.
      createRetriedWithItsKey: [...attemptsByKey.values()].some((attempts) => attempts > 1),
      createdNotStored: created.filter((c) => !fleetCodes.has(c.id)).length,
      storedNotAnswered: fleetCodes.size - new Set(created.map((c) => c.id)).size,
    }).toEqual({
      failed: 0,
      answered500: 0,
      lost: 0,
      tokenUsedTwice: 0,
      confirmedTwice: 0,
      shellExit: 0,
      confirmedAfterKill: true,
      movedPrimary: true,
      adminCreatesFailed: 0,
      createRetriedWithItsKey: true,
      createdNotStored: 0,
      storedNotAnswered: 0,
    });
    // Within the formation's own promotion time and 2 s: the service adds at most ~2 s to the failover.
    expect(gapMs).toBeLessThanOrEqual(promotionMs + 2000);
  });
});
