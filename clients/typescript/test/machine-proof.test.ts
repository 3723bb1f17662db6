import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostKeyFolder, type HostKey, type HostKeyName } from '../../../test/support/ssh-host-keys.js';
import { proofMessage, runInstall, signMachineProof, type RunInstallOptions } from '../src/index.js';
import {
  activationStatusOf,
  address,
  harnessPerSuite,
  inProcess,
  INSTALLER_VERSION,
  issueCode,
  type ClientHarness,
} from './client-harness.js';

const run = promisify(execFile);

/** `ssh-keygen -Y check-novalidate`: the signature is a good one by its key, in the namespace, over the message. */
async function checkNovalidate(signature: string, message: Buffer, dir: string): Promise<string> {
  const file = `${dir}/checked-${Math.random().toString(36).slice(2)}.sig`;
  await writeFile(file, signature);
  const child = run('ssh-keygen', ['-Y', 'check-novalidate', '-n', 'slowdns-activate', '-s', file]);
  child.child.stdin!.end(message);
  return (await child).stdout;
}

const TYPES: HostKeyName[] = ['ed25519', 'ecdsa-256', 'ecdsa-384', 'ecdsa-521', 'rsa-2048'];

describe('the TypeScript client proves the machine with node:crypto (DESIGN §24)', () => {
  const folder = hostKeyFolder();
  const keys = new Map<HostKeyName, HostKey>();
  beforeAll(async () => {
    const made = await folder;
    for (const name of TYPES) keys.set(name, await made.make(name));
  });
  afterAll(async () => (await folder).cleanUp());

  it.each(TYPES)(
    'its signature with a %s key from an OpenSSH private key file passes ssh-keygen -Y check-novalidate',
    async (name) => {
      const key = keys.get(name)!;
      const statement = {
        serviceOrigin: 'https://activation.example.net',
        challenge: 'q2Yb0QhM3x9tW7cJvE5nK1pLr8sA4dFgH6jZuXoViTc',
        machineId: '4c4c4544003957108052b4c04f384833',
        hostname: 'vpn1.example.net',
        publicIp: '203.0.113.7',
      };
      const proof = signMachineProof(await readFile(key.file, 'utf8'), statement);
      expect(proof.ssh_host_key).toBe(key.publicLine.split(' ').slice(0, 2).join(' '));
      const out = await checkNovalidate(proof.ssh_key_signature, proofMessage(statement), (await folder).dir);
      expect(out).toContain(`Good "slowdns-activate" signature`);
      expect(out).toContain(key.fingerprint);
      // Another message is refused by ssh-keygen too.
      await expect(
        checkNovalidate(
          proof.ssh_key_signature,
          proofMessage({ ...statement, hostname: 'x.example' }),
          (await folder).dir,
        ),
      ).rejects.toThrow();
    },
  );

  describe('runInstall', () => {
    let h: ClientHarness;
    harnessPerSuite(inProcess, (opened) => {
      h = opened;
    });
    const options = (
      installCode: string,
      key: HostKey,
      overrides: Partial<RunInstallOptions> = {},
    ): RunInstallOptions => ({
      client: h.client,
      installCode,
      machine: { machine_id: '4c4c4544003957108052b4c04f384833', ssh_fingerprint: key.fingerprint },
      installerVersion: INSTALLER_VERSION,
      requestedRef: 'main',
      confirmAddress: async () => address,
      install: async () => {},
      signals: [],
      hostKeyFile: key.file,
      ...overrides,
    });

    it('proves the key by default when it can read it: the activation is ssh_key_proven', async () => {
      const result = await runInstall(options(await issueCode(h), keys.get('ecdsa-256')!));
      expect(result.outcome).toBe('confirmed');
      if (result.outcome !== 'confirmed' || !('precheck' in result)) throw new Error('not a new install');
      expect(result.activation.machine_binding.ssh_key_proven).toBe(true);
      expect(await activationStatusOf(h, result.activation.activation_id)).toBe('confirmed');
    });

    it('without a readable key, or another key than the fingerprint, goes on unproven and says why', async () => {
      const told: string[] = [];
      const missing = await runInstall(
        options(await issueCode(h), keys.get('ed25519')!, {
          hostKeyFile: '/nonexistent/ssh_host_ed25519_key',
          onProofSkipped: (m) => told.push(m),
        }),
      );
      const other = await runInstall(
        options(await issueCode(h), keys.get('ed25519')!, {
          hostKeyFile: keys.get('rsa-2048')!.file,
          onProofSkipped: (m) => told.push(m),
        }),
      );
      for (const result of [missing, other]) {
        expect(result.outcome).toBe('confirmed');
        if (result.outcome === 'confirmed' && 'precheck' in result)
          expect(result.activation.machine_binding.ssh_key_proven).toBe(false);
      }
      expect(told).toEqual([
        expect.stringContaining('no SSH host private key this process can read'),
        expect.stringContaining('is not the one of the fingerprint sent'),
      ]);
    });

    it('a proof the service does not take under optional (another origin) costs no install: it goes on unproven', async () => {
      const told: string[] = [];
      const result = await runInstall(
        options(await issueCode(h), keys.get('ed25519')!, {
          serviceOrigin: 'https://elsewhere.example.org',
          onProofSkipped: (m) => told.push(m),
        }),
      );
      expect(result.outcome).toBe('confirmed');
      expect(told).toEqual([expect.stringContaining('did not accept this machine')]);
    });
  });
});
