// A rolling restart behind a load balancer that trusts the health check: two instances of the compiled server
// on one PostgreSQL database, installers at both, each instance killed with kill -9 in turn and started again,
// sent traffic again from its first healthy answer. Nothing the restarted instance answers from then on may be
// a 5xx: its health check says 200 only once requests will succeed. PostgreSQL only (two instances, one database).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, runInstall } from '../../clients/typescript/src/index.js';
import { INSTALLER_VERSION, randomMachine } from '../support/install-flow.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { spawnService, TEST_KEK, type SpawnedService } from '../support/spawn-service.js';

const adminUrl = process.env.DATABASE_URL;
const PUBLIC_BASE_URL = 'http://localhost:8080';
const INSTALLERS = 16;
/** How long each instance serves in rotation before the other is killed, and after the last restart. */
const SERVE_MS = 3000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Instance {
  name: string;
  service: SpawnedService;
  base: string;
  /** In the balancer's rotation: from its first healthy answer until it is killed. */
  inRotation: boolean;
  /** When its health check first said 200. */
  healthyAt: number;
}

describe.skipIf(!adminUrl)('a rolling restart of two instances (kill -9), under load', { timeout: 240_000 }, () => {
  let scratch: ScratchDatabase;
  let env: Record<string, string>;
  const instances: Instance[] = [];

  const start = async (name: string): Promise<Instance> => {
    const service = spawnService(env);
    const instance = { name, service, base: `http://127.0.0.1:${await service.port}`, inRotation: false, healthyAt: 0 };
    // As a load balancer does: health-checked every 100 ms until it first says 200, then sent traffic.
    for (;;) {
      const health = await fetch(`${instance.base}/api/v2/healthz`).catch(() => undefined);
      if (health?.status === 200) break;
      await sleep(100);
    }
    instance.inRotation = true;
    instance.healthyAt = Date.now();
    return instance;
  };

  beforeAll(async () => {
    scratch = await createScratchDatabase(adminUrl!, 'slowdns_rolling');
    env = {
      DATABASE_URL: scratch.url,
      KEY_ENCRYPTION_KEY: TEST_KEK,
      PUBLIC_BASE_URL,
      // Every installer comes from 127.0.0.1: the per-address quotas are raised, as for trying it locally.
      RATE_LIMIT_PROFILE: 'development',
      RATE_LIMIT_PROFILE_FORCE: 'true',
      // The balancer says each installer's address (X-Forwarded-For), as one in front of the service does.
      TRUST_PROXY: '1',
    };
    // The first starts alone: it migrates the database.
    instances.push(await start('a'));
    instances.push(await start('b'));
  }, 120_000);

  afterAll(async () => {
    for (const { service } of instances) await service.stop().catch(() => {});
    await scratch?.drop();
  });

  it('no answer is a 5xx: a restarted instance is healthy only once its requests succeed', async () => {
    let turn = 0;
    const pick = () => {
      const ready = instances.filter((i) => i.inRotation);
      return ready[turn++ % ready.length]!;
    };
    /** Every answer: its instance, its status, its error code. */
    const answers: { instance: string; status: number; code?: string; path: string; at: number; took: number }[] = [];
    /** The balancer: each request to the next instance in rotation, the client's address in X-Forwarded-For. */
    const balanced = (address: string) => async (request: Request) => {
      const instance = pick();
      const url = new URL(request.url);
      const forwarded = new Request(`${instance.base}${url.pathname}${url.search}`, request);
      forwarded.headers.set('x-forwarded-for', address);
      const sent = performance.now();
      const response = await fetch(forwarded);
      const took = performance.now() - sent;
      const answer = {
        instance: instance.name,
        status: response.status,
        path: url.pathname,
        at: Date.now() - instance.healthyAt,
        took,
      };
      if (response.status >= 500) {
        const body = (await response
          .clone()
          .json()
          .catch(() => ({}))) as { error?: { code: string } };
        answers.push({ ...answer, code: body.error?.code });
      } else answers.push(answer);
      return response;
    };
    const clientAt = (address: string) =>
      createClient({
        baseUrl: 'http://balancer',
        fetch: balanced(address),
        retry: { maxRetries: 30, baseDelayMs: 100, maxDelayMs: 500 },
      });
    let installs = 0;
    /** A code from a new browser session, over HTTP as the page gets one (again on a connection the kill cut). */
    const issueCode = async (address: string): Promise<string> => {
      for (;;) {
        // A connection the kill cut (fetch failed): the balancer tries again, on the instance next in rotation.
        const code = await issueCodeAt(pick().base, address).catch((error: Error) => {
          if (error.message !== 'fetch failed') throw error;
        });
        if (code) return code;
      }
    };
    const issueCodeAt = async (base: string, address: string): Promise<string> => {
      const page = await fetch(`${base}/slowdns`, { headers: { 'x-forwarded-for': address } });
      const cookie = /slowdns_browser=[^;]+/.exec(page.headers.get('set-cookie') ?? '')?.[0];
      // Each install is another person: another browser, so another fingerprint (one shared by every
      // install would meet issue-fingerprint-day, 600 a day in the development profile, on a fast machine).
      const res = await fetch(`${base}/api/v2/slowdns/code/issue`, {
        method: 'POST',
        headers: {
          cookie: cookie ?? '',
          origin: PUBLIC_BASE_URL,
          'sec-fetch-site': 'same-origin',
          'x-forwarded-for': address,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ browser_signal: `rolling-restart-person-${address}` }),
      });
      if (res.status !== 201) throw new Error(`issue answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { data: { install_code: string } }).data.install_code;
    };

    let stop = false;
    let confirmed = 0;
    const outcomes: string[] = [];
    const installer = async () => {
      while (!stop) {
        installs++;
        const address = `10.${(installs >> 16) & 255}.${(installs >> 8) & 255}.${installs & 255}`;
        const result = await runInstall({
          client: clientAt(address),
          installCode: await issueCode(address),
          machine: randomMachine(),
          installerVersion: INSTALLER_VERSION,
          requestedRef: 'main',
          signals: [],
          confirmAddress: async () => ({ hostname: 'rolling.example', public_ip: '203.0.113.7' }),
          install: async () => {},
        });
        if (result.outcome === 'confirmed') confirmed++;
        else outcomes.push(result.outcome);
      }
    };
    const restarts = async () => {
      for (const index of [0, 1, 0]) {
        await sleep(SERVE_MS);
        const victim = instances[index]!;
        victim.inRotation = false;
        victim.service.process.kill('SIGKILL');
        await victim.service.exited;
        instances[index] = await start(victim.name);
      }
      await sleep(SERVE_MS);
      stop = true;
    };
    await Promise.all([...Array.from({ length: INSTALLERS }, installer), restarts()]);

    const failed = answers.filter((a) => a.status >= 500);
    for (const { service } of instances)
      for (const line of service.stdout.filter((l) => /"level":"(warn|error)"/.test(l)))
        console.log(line.slice(0, 400));
    const byStatus: Record<number, number> = {};
    for (const a of answers) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
    const early = answers.filter((a) => a.at < 2000 && a.instance !== 'b').map((a) => a.took);
    const late = answers.filter((a) => a.at > 2000).map((a) => a.took);
    console.log(
      `first 2 s after healthy: ${early.length} answers, slowest ${Math.max(...early).toFixed(0)} ms; later slowest ${Math.max(...late).toFixed(0)} ms`,
    );
    console.log(`rolling restart: ${confirmed} installs confirmed; answers by status ${JSON.stringify(byStatus)}`);
    expect({ failed, notConfirmed: outcomes }).toEqual({ failed: [], notConfirmed: [] });
    expect(confirmed).toBeGreaterThan(0);
  });
});
