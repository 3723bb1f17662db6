// BENCH_ONLY=proof: what proving the machine (DESIGN §24) costs an activate, per key type. Host keys made by
// Debian's ssh-keygen; each activate's proof signed beforehand by the TypeScript client (node:crypto), so that
// only the service's side is timed: activate through the app (app.request) with no proof and with a proof of each
// type, the statements it sends, and the verification alone (verifyMachineProof, no database).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostKeyFingerprint, signMachineProof } from '../../clients/typescript/src/machine-proof.js';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createBrowserSession } from '../../src/domain/browser-sessions/sessions.js';
import { verifyMachineProof } from '../../src/domain/machine-proof/verify-machine-proof.js';
import { generatePrivateJwk, keyRingFromJwks } from '../../src/domain/tokens/signing-keys.js';
import { createLogger } from '../../src/logger.js';
import type { CountingDatabase } from './counting-database.js';
import { measure, type Measurement } from './measure.js';

const NOW = new Date('2026-11-22T10:30:00Z');
const WARMUP = 20;
const ORIGIN = 'http://localhost:8080';
const KEYS = {
  ed25519: ['-t', 'ed25519'],
  'ecdsa-256': ['-t', 'ecdsa', '-b', '256'],
  'ecdsa-384': ['-t', 'ecdsa', '-b', '384'],
  'ecdsa-521': ['-t', 'ecdsa', '-b', '521'],
  'rsa-2048': ['-t', 'rsa', '-b', '2048'],
  'rsa-4096': ['-t', 'rsa', '-b', '4096'],
  'rsa-8192': ['-t', 'rsa', '-b', '8192'],
} as const;

/** CPU time (user + system, µs) per verification of one flow's proof: the lowest, median and highest of 10 slices. */
function verificationCpu(f: {
  proof: Record<string, string>;
  challenge: string;
  machine: { machine_id: string; ssh_fingerprint: string };
}): number[] {
  const once = () =>
    verifyMachineProof(
      { sshHostKey: f.proof.ssh_host_key!, sshKeySignature: f.proof.ssh_key_signature! },
      {
        statement: {
          origin: ORIGIN,
          challenge: f.challenge,
          machineId: f.machine.machine_id,
          hostname: 'vpn1.example.net',
          publicIp: '203.0.113.7',
        },
        fingerprint: f.machine.ssh_fingerprint,
      },
    );
  for (let i = 0; i < 50; i++) once();
  const slices: number[] = [];
  for (let slice = 0; slice < 10; slice++) {
    const started = process.cpuUsage();
    for (let i = 0; i < 100; i++) once();
    const used = process.cpuUsage(started);
    slices.push((used.user + used.system) / 100);
  }
  slices.sort((a, b) => a - b);
  return [slices[0]!, slices[5]!, slices[9]!].map((us) => Math.round(us));
}

let flowNumber = 0;

export async function benchMachineProof(database: CountingDatabase, runs: number): Promise<Measurement[]> {
  const { db } = database;
  const { app } = createApp({
    db,
    clock: { now: () => NOW },
    config: loadConfig({ PUBLIC_BASE_URL: ORIGIN }),
    logger: createLogger('silent'),
    keys: await keyRingFromJwks([await generatePrivateJwk()]),
  });
  const send = async (path: string, init: RequestInit, from: string) => {
    const res = await app.request(path, init, { incoming: { socket: { remoteAddress: from } } });
    if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { data: Record<string, string> };
  };
  const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-host-keys-'));
  const keyTexts = new Map<string, string>();
  for (const [name, args] of Object.entries(KEYS)) {
    execFileSync('ssh-keygen', ['-q', ...args, '-N', '', '-f', join(dir, name)]);
    keyTexts.set(name, readFileSync(join(dir, name), 'utf8'));
  }
  rmSync(dir, { recursive: true });

  /** An issued, prechecked code and the activate body for it, with a proof by `key` (none: undefined). */
  const prepare = async (key: string | undefined) => {
    flowNumber += 1;
    const from = `10.${(flowNumber >> 16) & 255}.${(flowNumber >> 8) & 255}.${flowNumber & 255}`;
    const session = await createBrowserSession(db, NOW, 3600);
    const cookie = `slowdns_browser=${session.cookieValue}`;
    const code = (
      await send('/api/v2/slowdns/code/issue', { method: 'POST', headers: { cookie, 'user-agent': from } }, from)
    ).data.install_code!;
    const machine = {
      machine_id: flowNumber.toString(16).padStart(32, '0'),
      ssh_fingerprint: key
        ? hostKeyFingerprint(keyTexts.get(key)!)
        : `SHA256:${'A'.repeat(39)}${flowNumber.toString(16).padStart(4, '0')}`,
    };
    const pre = await send(
      '/api/v2/slowdns/install/precheck',
      post({ install_code: code, ...machine, product: 'slowdns', installer_version: '2026.11.20.1' }),
      from,
    );
    const values = { hostname: 'vpn1.example.net', public_ip: '203.0.113.7' };
    const proof = key
      ? signMachineProof(keyTexts.get(key)!, {
          serviceOrigin: ORIGIN,
          challenge: pre.data.proof_challenge!,
          machineId: machine.machine_id,
          ...{ hostname: values.hostname, publicIp: values.public_ip },
        })
      : {};
    const body = {
      install_code: code,
      precheck_token: pre.data.precheck_token,
      ...values,
      ...machine,
      requested_ref: 'main',
      installer_version: '2026.11.20.1',
      ...proof,
    };
    return { body, from, machine, proof, challenge: pre.data.proof_challenge! };
  };

  const results: Measurement[] = [];
  const verificationRows: string[] = [];
  for (const key of [undefined, ...Object.keys(KEYS)]) {
    const flows: Awaited<ReturnType<typeof prepare>>[] = [];
    for (let i = 0; i < runs + WARMUP; i++) flows.push(await prepare(key));
    results.push(
      await measure(
        database,
        `activate, ${key ? `${key} proof` : 'no proof'}`,
        runs,
        async (i) => {
          const f = flows[i]!;
          const { data } = await send('/api/v2/slowdns/install/activate', post(f.body), f.from);
          if (
            String(
              data.machine_binding && (data.machine_binding as unknown as { ssh_key_proven: boolean }).ssh_key_proven,
            ) !== String(key !== undefined)
          )
            throw new Error('ssh_key_proven is not what was sent');
        },
        WARMUP,
      ),
    );
    if (key) verificationRows.push(`| ${key} | ${verificationCpu(flows[0]!).join(' | ')} |`);
  }
  console.log('\nthe verification alone (verifyMachineProof, no database): CPU µs per verification, 10 slices of 100');
  console.log('| key | lowest slice | median slice | highest slice |');
  console.log('|---|---|---|---|');
  for (const row of verificationRows) console.log(row);
  return results;
}
