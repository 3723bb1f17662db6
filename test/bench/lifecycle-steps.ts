// The steps of an install, each a request through the app: page, issue, precheck, activate, then
// confirm (the first half of the installs) or release (the second half), and healthz.
import { randomBytes } from 'node:crypto';
import type { StepClient } from './bench-service.js';

export const STEPS = ['page', 'issue', 'precheck', 'activate', 'confirm', 'release', 'healthz'] as const;
export type Step = (typeof STEPS)[number];

/** The lifecycle steps whose statements add up to one install (release is the alternative ending). */
export const LIFECYCLE: Step[] = ['page', 'issue', 'precheck', 'activate', 'confirm'];

interface Install {
  address: string;
  userAgent: string;
  machine: { machine_id: string; ssh_fingerprint: string };
  cookie?: string;
  code?: string;
  precheckToken?: string;
  activationId?: string;
  installToken?: string;
}

const INSTALLER_VERSION = '2026.11.20.1';

function json(body: unknown): RequestInit {
  const text = JSON.stringify(body);
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) },
    body: text,
  };
}

async function data(res: Response, status: number): Promise<Record<string, string>> {
  if (res.status !== status) throw new Error(`answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: Record<string, string> }).data;
}

/** Installs of one run have addresses of their own up to this many (`10.<run>.x.y`). */
const ADDRESSES_PER_RUN = 65_536;

/** `count` installs, each from its own address, browser and machine (no rate limit is ever reached). */
export function createInstalls(count: number, run: number): Install[] {
  if (count > ADDRESSES_PER_RUN)
    throw new RangeError(`a run has ${ADDRESSES_PER_RUN} addresses of its own: ${count} installs would share some`);
  return Array.from({ length: count }, (_, i) => ({
    address: `10.${run & 255}.${(i >> 8) & 255}.${i & 255}`,
    userAgent: `bench-browser/${run}.${i}`,
    machine: {
      machine_id: randomBytes(16).toString('hex'),
      ssh_fingerprint: `SHA256:${randomBytes(32).toString('base64').slice(0, 43)}`,
    },
  }));
}

/**
 * The warm-up before a server is measured (`BENCH_WARM_UP` installs, each step for all of them at the
 * measured concurrency before the next step): measured from its first requests, a server is still being
 * compiled (docs/measurements.md, "The hot steps, the start and the export on a fast machine").
 */
export async function warmUp(service: StepClient, installs: Install[], concurrency: number): Promise<void> {
  for (const step of LIFECYCLE)
    await atConcurrency(installs, concurrency, (install) => runStep(service, step, install));
}

/** `run` for every item, at most `concurrency` at a time, in the items' order. */
export async function atConcurrency<T>(
  items: T[],
  concurrency: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

/** Which of `count` installs end in confirm by default: the first half (the second half ends in release). */
export const firstHalfConfirmed = (count: number) => (index: number) => index < count >> 1;

/** Which installs a step runs for: confirm those `confirmed` says, release the others, every other step all. */
export function indicesFor(step: Step, count: number, confirmed = firstHalfConfirmed(count)): number[] {
  const all = Array.from({ length: count }, (_, i) => i);
  if (step === 'confirm' || step === 'release') return all.filter((i) => confirmed(i) === (step === 'confirm'));
  return all;
}

export async function runStep(service: StepClient, step: Step, install: Install): Promise<void> {
  const { address } = install;
  switch (step) {
    case 'page': {
      const res = await service.request('/slowdns', { headers: { 'user-agent': install.userAgent } }, address);
      if (res.status !== 200) throw new Error(`page answered ${res.status}`);
      await res.arrayBuffer();
      install.cookie = /slowdns_browser=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
      return;
    }
    case 'issue': {
      const headers = { cookie: install.cookie ?? '', 'user-agent': install.userAgent };
      install.code = (
        await data(await service.request('/api/v2/slowdns/code/issue', { method: 'POST', headers }, address), 201)
      ).install_code;
      return;
    }
    case 'precheck': {
      const body = {
        install_code: install.code,
        ...install.machine,
        product: 'slowdns',
        installer_version: INSTALLER_VERSION,
      };
      install.precheckToken = (
        await data(await service.request('/api/v2/slowdns/install/precheck', json(body), address), 200)
      ).precheck_token;
      return;
    }
    case 'activate': {
      const body = {
        install_code: install.code,
        precheck_token: install.precheckToken,
        hostname: 'vpn1.example.net',
        public_ip: '203.0.113.7',
        ...install.machine,
        requested_ref: 'main',
        installer_version: INSTALLER_VERSION,
      };
      const answer = await data(await service.request('/api/v2/slowdns/install/activate', json(body), address), 200);
      install.activationId = answer.activation_id;
      install.installToken = answer.install_token;
      return;
    }
    case 'confirm':
      await data(
        await service.request(
          '/api/v2/slowdns/install/confirm',
          json({ activation_id: install.activationId, install_token: install.installToken }),
          address,
        ),
        200,
      );
      return;
    case 'release':
      await data(
        await service.request(
          '/api/v2/slowdns/install/release',
          json({ activation_id: install.activationId }),
          address,
        ),
        200,
      );
      return;
    case 'healthz':
      await data(await service.request('/api/v2/healthz', {}, address), 200);
      return;
  }
}
