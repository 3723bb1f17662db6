// What each step of an install costs through the whole app (app.request, no socket): SQL statements
// and microseconds per request for issue, precheck, activate, register, confirm, release, check-in
// and revoke. Every request comes from its own client address and machine, so no limit refuses one.
import { createHash } from 'node:crypto';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createBrowserSession } from '../../src/domain/browser-sessions/sessions.js';
import { generatePrivateJwk, keyRingFromJwks } from '../../src/domain/tokens/signing-keys.js';
import { createLogger } from '../../src/logger.js';
import type { CountingDatabase } from './counting-database.js';
import { measure, type Measurement } from './measure.js';

const NOW = new Date('2026-11-22T10:30:00Z');
const WARMUP = 20;

interface Flow {
  cookie: string;
  address: string;
  machineId: string;
  /** The machine's own SSH host key: one shared by every flow would make each activate a cloned image (DESIGN §16). */
  sshFingerprint: string;
  code?: string;
  precheckToken?: string;
  activationId?: string;
  installToken?: string;
  agentToken?: string;
}

const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/**
 * `offset` moves the flows' addresses and machines past those of earlier runs on the same database (the
 * clock is fixed, so a second run from the same addresses would meet the per-address limits of the first).
 */
export async function benchLifecycle(database: CountingDatabase, runs: number, offset = 0): Promise<Measurement[]> {
  const { db } = database;
  const { app } = createApp({
    db,
    clock: { now: () => NOW },
    config: loadConfig({
      PUBLIC_BASE_URL: 'http://localhost:8080',
      ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef0123',
    }),
    logger: createLogger('silent'),
    keys: await keyRingFromJwks([await generatePrivateJwk()]),
  });
  const send = async (path: string, init: RequestInit, from: string, expected: number) => {
    const res = await app.request(path, init, { incoming: { socket: { remoteAddress: from } } });
    if (res.status !== expected) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { data: Record<string, string> };
  };

  // Two flows per index: one ends in confirm, the other in release.
  const flows: Flow[] = [];
  for (let i = offset; i < offset + 2 * (runs + WARMUP); i++) {
    const session = await createBrowserSession(db, NOW, 3600);
    flows.push({
      cookie: `slowdns_browser=${session.cookieValue}`,
      address: address(i),
      machineId: i.toString(16).padStart(32, '0'),
      sshFingerprint: `SHA256:${createHash('sha256').update(`host key ${i}`).digest('base64').slice(0, 43)}`,
    });
  }
  const machine = (f: Flow) => ({
    machine_id: f.machineId,
    ssh_fingerprint: f.sshFingerprint,
  });
  const results: Measurement[] = [];
  // Steps every flow takes run 2N times; the others once per pair (the first flow confirms, the second releases).
  const step = async (name: string, run: (f: Flow) => Promise<void>, which: 'both' | 'first' | 'second' = 'both') => {
    const at =
      which === 'both' ? (i: number) => i : which === 'first' ? (i: number) => 2 * i : (i: number) => 2 * i + 1;
    const factor = which === 'both' ? 2 : 1;
    results.push(await measure(database, name, factor * runs, (i) => run(flows[at(i)]!), factor * WARMUP));
  };

  await step('issue', async (f) => {
    f.code = (
      await send(
        '/api/v2/slowdns/code/issue',
        { method: 'POST', headers: { cookie: f.cookie, 'user-agent': `bench/${f.address}` } },
        f.address,
        201,
      )
    ).data.install_code;
  });
  await step('precheck', async (f) => {
    const body = { install_code: f.code, ...machine(f), product: 'slowdns', installer_version: '2026.11.20.1' };
    f.precheckToken = (await send('/api/v2/slowdns/install/precheck', json(body), f.address, 200)).data.precheck_token;
  });
  await step('activate', async (f) => {
    const body = {
      install_code: f.code,
      precheck_token: f.precheckToken,
      hostname: 'vpn1.example.net',
      public_ip: '203.0.113.7',
      ...machine(f),
      requested_ref: 'main',
      installer_version: '2026.11.20.1',
    };
    const { data } = await send('/api/v2/slowdns/install/activate', json(body), f.address, 200);
    f.activationId = data.activation_id;
    f.installToken = data.install_token;
  });
  await step(
    'register',
    async (f) => {
      const body = { activation_id: f.activationId, install_token: f.installToken, agent_version: '1.0.0' };
      f.agentToken = (await send('/register', json(body), f.address, 201)).data.agent_token;
    },
    'first',
  );
  await step(
    'check-in',
    async (f) => {
      await send(
        '/checkin',
        json({ agent_version: '1.0.0', uptime_seconds: 60, services: [] }, { authorization: `Bearer ${f.agentToken}` }),
        f.address,
        200,
      );
    },
    'first',
  );
  await step(
    'confirm',
    async (f) => {
      await send(
        '/api/v2/slowdns/install/confirm',
        json({ activation_id: f.activationId, install_token: f.installToken }),
        f.address,
        200,
      );
    },
    'first',
  );
  await step(
    'release',
    async (f) => {
      await send('/api/v2/slowdns/install/release', json({ activation_id: f.activationId }), f.address, 200);
    },
    'second',
  );
  await step(
    'revoke (agent)',
    async (f) => {
      await send('/revoke', { method: 'POST', headers: { authorization: `Bearer ${f.agentToken}` } }, f.address, 200);
    },
    'first',
  );
  return results;
}
