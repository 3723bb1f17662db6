import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { activateRequest, freshClient, issueCode, precheckRequest, randomMachine } from './install-flow.js';
import type { TestApp } from './test-app.js';

const run = promisify(execFile);

/** The host key types Debian's ssh-keygen makes (`-t`, `-b`), by the name the tests give them. */
const HOST_KEY_TYPES = {
  ed25519: ['-t', 'ed25519'],
  'ecdsa-256': ['-t', 'ecdsa', '-b', '256'],
  'ecdsa-384': ['-t', 'ecdsa', '-b', '384'],
  'ecdsa-521': ['-t', 'ecdsa', '-b', '521'],
  'rsa-2048': ['-t', 'rsa', '-b', '2048'],
  'rsa-3072': ['-t', 'rsa', '-b', '3072'],
  'rsa-1024': ['-t', 'rsa', '-b', '1024'],
  dsa: ['-t', 'dsa'],
} as const;

export type HostKeyName = keyof typeof HOST_KEY_TYPES;

/** A host key made by ssh-keygen: its private key file, its public line and the fingerprint ssh-keygen prints. */
export interface HostKey {
  name: string;
  file: string;
  publicLine: string;
  fingerprint: string;
}

/** A folder of host keys made by the real `ssh-keygen` (Debian's openssh-client), removed by `cleanUp`. */
export async function hostKeyFolder() {
  const dir = await mkdtemp(join(tmpdir(), 'slowdns-host-keys-'));
  let made = 0;
  return {
    dir,
    async make(name: HostKeyName): Promise<HostKey> {
      made += 1;
      const file = join(dir, `${name}-${made}`);
      await run('ssh-keygen', ['-q', ...HOST_KEY_TYPES[name], '-N', '', '-C', `root@${name}`, '-f', file]);
      return hostKeyOf(name, file);
    },
    /** A file in the folder (a message to sign, a certificate's CA). */
    path: (name: string) => join(dir, name),
    cleanUp: () => rm(dir, { recursive: true, force: true }),
  };
}

export async function hostKeyOf(name: string, file: string, publicFile = `${file}.pub`): Promise<HostKey> {
  const publicLine = (await readFile(publicFile, 'utf8')).trim();
  const { stdout } = await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', publicFile]);
  return { name, file, publicLine, fingerprint: stdout.split(' ')[1]! };
}

/** `ssh-keygen -Y sign` of `message` with the key file, in `namespace`: the armored signature it writes. */
export async function sshKeygenSign(
  keyFile: string,
  message: string,
  { namespace = 'slowdns-activate', hash }: { namespace?: string; hash?: 'sha256' | 'sha512' } = {},
): Promise<string> {
  const messageFile = `${keyFile}.message-${Math.random().toString(36).slice(2)}`;
  await writeFile(messageFile, message);
  await run('ssh-keygen', [
    '-Y',
    'sign',
    '-n',
    namespace,
    '-f',
    keyFile,
    ...(hash ? ['-O', `hashalg=${hash}`] : []),
    messageFile,
  ]);
  const signature = await readFile(`${messageFile}.sig`, 'utf8');
  await rm(messageFile);
  await rm(`${messageFile}.sig`);
  return signature;
}

/** The statement DESIGN §24 has the machine sign, written out here as the design writes it (not the service's code). */
export function statementOf(values: {
  origin?: string;
  challenge: string;
  machine_id: string;
  hostname: string;
  public_ip: string;
}): string {
  const origin = values.origin ?? 'http://localhost:8080';
  return `slowdns-activate/1\nservice=${origin}\nchallenge=${values.challenge}\nmachine_id=${values.machine_id}\nhostname=${values.hostname}\npublic_ip=${values.public_ip}\n`;
}

/** A precheck of a new code by a machine whose fingerprint is `key`'s: what a proof then signs. */
export async function precheckWithKey(
  t: TestApp,
  key: Pick<HostKey, 'fingerprint'>,
  { code, machineId = randomMachine().machine_id }: { code?: string; machineId?: string } = {},
) {
  const installCode = code ?? (await issueCode(t));
  const machine = { machine_id: machineId, ssh_fingerprint: key.fingerprint };
  const res = await precheckRequest(t, installCode, machine, freshClient().address);
  expect(res.status).toBe(200);
  const { data } = await res.json();
  return {
    code: installCode,
    machine,
    token: data.precheck_token as string,
    challenge: data.proof_challenge as string,
    machineProof: data.machine_proof as string,
  };
}

/** The body's values an activate sends by default (install-flow's activateRequest). */
export const ACTIVATE_VALUES = { hostname: 'vpn1.example.net', public_ip: '203.0.113.7' };

/**
 * Precheck, `ssh-keygen -Y sign` of the statement with `key`, activate with the proof: the answer. `signed`
 * changes what is signed (the body keeps the defaults), `body` what is sent.
 */
export async function provenActivate(
  t: TestApp,
  key: HostKey,
  {
    code,
    machineId,
    signed = {},
    body = {},
  }: { code?: string; machineId?: string; signed?: Record<string, string>; body?: Record<string, unknown> } = {},
) {
  const precheck = await precheckWithKey(t, key, { code, machineId });
  const statement = statementOf({
    challenge: precheck.challenge,
    machine_id: precheck.machine.machine_id,
    ...ACTIVATE_VALUES,
    ...signed,
  });
  const signature = await sshKeygenSign(key.file, statement);
  const res = await activateRequest(
    t,
    precheck.code,
    precheck.token,
    { ...precheck.machine, ssh_host_key: key.publicLine, ssh_key_signature: signature, ...body },
    freshClient().address,
  );
  return { res, precheck, signature };
}
