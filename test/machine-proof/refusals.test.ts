import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activations } from '../../src/db/schema.js';
import { signPrecheckToken } from '../../src/domain/tokens/install-step-tokens.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { eventTrail } from '../support/event-trail.js';
import { activateRequest, expectError, freshClient, issueCode } from '../support/install-flow.js';
import {
  ACTIVATE_VALUES,
  hostKeyFolder,
  hostKeyOf,
  precheckWithKey,
  sshKeygenSign,
  statementOf,
  type HostKey,
  type HostKeyName,
} from '../support/ssh-host-keys.js';
import {
  armoredSignature,
  blobOf,
  ed25519SignatureAs,
  fingerprintOf,
  rsaSignature,
  sshString,
} from '../support/sshsig-forgery.js';
import { buildTestApp, useTestApp } from '../support/test-app.js';

const run = promisify(execFile);

describe('a machine proof that does not prove is 403 machine_proof_invalid, never a 500 (DESIGN §24)', () => {
  const t = useTestApp();
  const folder = hostKeyFolder();
  const keys = new Map<HostKeyName | 'other', HostKey>();
  beforeAll(async () => {
    const made = await folder;
    for (const name of ['ed25519', 'rsa-2048', 'rsa-1024', 'dsa'] as const) keys.set(name, await made.make(name));
    keys.set('other', await made.make('ed25519'));
  });
  afterAll(async () => (await folder).cleanUp());

  /** Precheck with `key`'s fingerprint, then activate with `proof` built from the statement of that precheck. */
  async function attempt(
    key: Pick<HostKey, 'fingerprint'>,
    proof: (statement: string, challenge: string) => Promise<{ ssh_host_key: string; ssh_key_signature: string }>,
    body: Record<string, unknown> = {},
  ) {
    const precheck = await precheckWithKey(t, key);
    const statement = statementOf({
      challenge: precheck.challenge,
      machine_id: precheck.machine.machine_id,
      ...ACTIVATE_VALUES,
    });
    const res = await activateRequest(
      t,
      precheck.code,
      precheck.token,
      { ...precheck.machine, ...(await proof(statement, precheck.challenge)), ...body },
      freshClient().address,
    );
    return { res, precheck };
  }

  const signedBy =
    (key: HostKey, line = key.publicLine) =>
    async (statement: string) => ({
      ssh_host_key: line,
      ssh_key_signature: await sshKeygenSign(key.file, statement),
    });

  async function refusedFor(res: Response, reason: string) {
    const trail = eventTrail(t);
    await expectError(res, 403, 'machine_proof_invalid');
    const refused = (await trail.take()).filter((e) => e.type === 'install_code.machine_proof_refused');
    expect(refused.at(-1)?.data).toMatchObject({ reason });
    expect(await t.database.db.select().from(activations)).toEqual([]);
  }

  it('another key than the precheck fingerprint: the key proves itself, not the machine the precheck named', async () => {
    const { res } = await attempt(keys.get('ed25519')!, signedBy(keys.get('other')!));
    await refusedFor(res, 'fingerprint_mismatch');
  });

  it('ssh_host_key is not the key inside the signature', async () => {
    const { res } = await attempt(keys.get('ed25519')!, signedBy(keys.get('other')!, keys.get('ed25519')!.publicLine));
    await refusedFor(res, 'key_not_signers');
  });

  it("another challenge: a signature replayed from an earlier precheck's", async () => {
    const key = keys.get('ed25519')!;
    const earlier = await precheckWithKey(t, key);
    const replayed = await sshKeygenSign(
      key.file,
      statementOf({ challenge: earlier.challenge, machine_id: earlier.machine.machine_id, ...ACTIVATE_VALUES }),
    );
    const later = await precheckWithKey(t, key, { code: earlier.code, machineId: earlier.machine.machine_id });
    const res = await activateRequest(t, later.code, later.token, {
      ...later.machine,
      ssh_host_key: key.publicLine,
      ssh_key_signature: replayed,
    });
    await refusedFor(res, 'signature_invalid');
  });

  it.each([
    ['hostname', { hostname: 'other.example.net' }],
    ['public IP', { public_ip: '198.51.100.99' }],
    ['machine id', { machine_id: '0123456789abcdef0123456789abcdef' }],
    ['service origin', { origin: 'https://activation.example.org' }],
  ])('another %s than signed', async (_, signed) => {
    const key = keys.get('ed25519')!;
    const precheck = await precheckWithKey(t, key);
    const statement = statementOf({
      challenge: precheck.challenge,
      machine_id: precheck.machine.machine_id,
      ...ACTIVATE_VALUES,
      ...signed,
    });
    const res = await activateRequest(t, precheck.code, precheck.token, {
      ...precheck.machine,
      ssh_host_key: key.publicLine,
      ssh_key_signature: await sshKeygenSign(key.file, statement),
    });
    await refusedFor(res, 'signature_invalid');
  });

  it('another namespace', async () => {
    const key = keys.get('ed25519')!;
    const { res } = await attempt(key, async (statement) => ({
      ssh_host_key: key.publicLine,
      ssh_key_signature: await sshKeygenSign(key.file, statement, { namespace: 'file' }),
    }));
    await refusedFor(res, 'namespace_mismatch');
  });

  it('a SHA-1 ssh-rsa signature', async () => {
    const key = keys.get('rsa-2048')!;
    const { res } = await attempt(key, async (statement) => ({
      ssh_host_key: key.publicLine,
      ssh_key_signature: await rsaSignature(key.file, statement, 'ssh-rsa'),
    }));
    await refusedFor(res, 'signature_algorithm_refused');
  });

  it('an RSA key under 2048 bits', async () => {
    const { res } = await attempt(keys.get('rsa-1024')!, signedBy(keys.get('rsa-1024')!));
    await refusedFor(res, 'rsa_key_size');
  });

  it('a DSA key', async () => {
    const { res } = await attempt(keys.get('dsa')!, signedBy(keys.get('dsa')!));
    await refusedFor(res, 'key_type_refused');
  });

  it('a host certificate made by ssh-keygen -s', async () => {
    const made = await folder;
    const host = keys.get('ed25519')!;
    const ca = await made.make('ed25519');
    await run('ssh-keygen', ['-q', '-s', ca.file, '-I', 'vpn1', '-h', `${host.file}.pub`]);
    const certificate = await hostKeyOf('certificate', host.file, `${host.file}-cert.pub`);
    const certBlob = blobOf(certificate.publicLine);
    const { res } = await attempt({ fingerprint: fingerprintOf(certBlob) }, async (statement) => ({
      ssh_host_key: certificate.publicLine,
      ssh_key_signature: await ed25519SignatureAs(host.file, certBlob, statement, 'ssh-ed25519'),
    }));
    await refusedFor(res, 'key_type_refused');
  });

  it('an sk- (security key) key', async () => {
    const host = keys.get('ed25519')!;
    const skBlob = Buffer.concat([
      sshString('sk-ssh-ed25519@openssh.com'),
      sshString(blobOf(host.publicLine).subarray(-32)),
      sshString('ssh:'),
    ]);
    const { res } = await attempt({ fingerprint: fingerprintOf(skBlob) }, async (statement) => ({
      ssh_host_key: `sk-ssh-ed25519@openssh.com ${skBlob.toString('base64')}`,
      ssh_key_signature: await ed25519SignatureAs(host.file, skBlob, statement, 'sk-ssh-ed25519@openssh.com'),
    }));
    await refusedFor(res, 'key_type_refused');
  });

  it('a truncated signature', async () => {
    const key = keys.get('ed25519')!;
    const { res } = await attempt(key, async (statement) => {
      const lines = (await sshKeygenSign(key.file, statement)).trim().split('\n');
      return { ssh_host_key: key.publicLine, ssh_key_signature: [...lines.slice(0, 2), lines.at(-1)].join('\n') };
    });
    await refusedFor(res, 'malformed_signature');
  });

  it('a re-armored signature: another armor label, or the blob with one byte changed', async () => {
    const key = keys.get('ed25519')!;
    const relabelled = await attempt(key, async (statement) => ({
      ssh_host_key: key.publicLine,
      ssh_key_signature: (await sshKeygenSign(key.file, statement)).replaceAll('SSH SIGNATURE', 'SIGNATURE'),
    }));
    await refusedFor(relabelled.res, 'malformed_signature');
    const altered = await attempt(key, async (statement) => {
      const armored = (await sshKeygenSign(key.file, statement)).trim().split('\n');
      const blob = Buffer.from(armored.slice(1, -1).join(''), 'base64');
      blob[blob.length - 5]! ^= 1;
      const rewrapped = [
        '-----BEGIN SSH SIGNATURE-----',
        ...blob.toString('base64').match(/.{1,64}/g)!,
        '-----END SSH SIGNATURE-----',
      ];
      return { ssh_host_key: key.publicLine, ssh_key_signature: rewrapped.join('\n') };
    });
    await refusedFor(altered.res, 'signature_invalid');
  });

  it('garbage base64 in the signature or the key', async () => {
    const key = keys.get('ed25519')!;
    const garbage = await attempt(key, async () => ({
      ssh_host_key: key.publicLine,
      ssh_key_signature: '-----BEGIN SSH SIGNATURE-----\n!!not*base64??\n-----END SSH SIGNATURE-----\n',
    }));
    await refusedFor(garbage.res, 'malformed_signature');
    const badKey = await attempt(key, async (statement) => ({
      ssh_host_key: 'ssh-ed25519 AAAA$$$$',
      ssh_key_signature: await sshKeygenSign(key.file, statement),
    }));
    await refusedFor(badKey.res, 'malformed_key');
    const emptySignature = await attempt(key, async () => ({
      ssh_host_key: key.publicLine,
      ssh_key_signature: armoredSignature({ publicBlob: blobOf(key.publicLine), signatureBlob: Buffer.alloc(0) }),
    }));
    await refusedFor(emptySignature.res, 'malformed_signature');
  });

  it('a precheck token without a challenge (made before machine proofs) cannot carry a proof', async () => {
    const key = keys.get('ed25519')!;
    const code = await issueCode(t);
    const machine = { machine_id: '4c4c4544003957108052b4c04f384833', ssh_fingerprint: key.fingerprint };
    const now = t.clock.now();
    const token = await signPrecheckToken(
      t.keys,
      { codeHash: sha256Hex(code), machineId: machine.machine_id, sshFingerprint: machine.ssh_fingerprint },
      now,
      new Date(now.getTime() + 600_000),
    );
    const statement = statementOf({ challenge: 'undefined', machine_id: machine.machine_id, ...ACTIVATE_VALUES });
    const res = await activateRequest(t, code, token, {
      ...machine,
      ssh_host_key: key.publicLine,
      ssh_key_signature: await sshKeygenSign(key.file, statement),
    });
    await refusedFor(res, 'no_challenge');
  });

  it('a 1 MB field is 413, a field over its length 400, one field without the other 400', async () => {
    const key = keys.get('ed25519')!;
    const precheck = await precheckWithKey(t, key);
    const huge = await activateRequest(t, precheck.code, precheck.token, {
      ...precheck.machine,
      ssh_host_key: key.publicLine,
      ssh_key_signature: 'A'.repeat(1 << 20),
    });
    await expectError(huge, 413, 'payload_too_large');
    const long = await activateRequest(t, precheck.code, precheck.token, {
      ...precheck.machine,
      ssh_host_key: key.publicLine,
      ssh_key_signature: 'A'.repeat(20_000),
    });
    await expectError(long, 400, 'validation_failed');
    const alone = await activateRequest(t, precheck.code, precheck.token, {
      ...precheck.machine,
      ssh_host_key: key.publicLine,
    });
    await expectError(alone, 400, 'validation_failed');
  });

  it('MACHINE_PROOF=required: precheck says so, an activate without a proof is 403 machine_proof_required, one with a proof activates', async () => {
    const strict = buildTestApp(t.database, t.keys, { MACHINE_PROOF: 'required' }, t.clock);
    const key = keys.get('ed25519')!;
    const precheck = await precheckWithKey(strict, key);
    expect(precheck.machineProof).toBe('required');
    const res = await activateRequest(strict, precheck.code, precheck.token, precheck.machine);
    await expectError(res, 403, 'machine_proof_required');
    const statement = statementOf({
      challenge: precheck.challenge,
      machine_id: precheck.machine.machine_id,
      ...ACTIVATE_VALUES,
    });
    const proven = await activateRequest(strict, precheck.code, precheck.token, {
      ...precheck.machine,
      ssh_host_key: key.publicLine,
      ssh_key_signature: await sshKeygenSign(key.file, statement),
    });
    expect(proven.status).toBe(200);
  });

  it('the key file itself never reaches the answer or the event: only the check that failed', async () => {
    const key = keys.get('ed25519')!;
    const trail = eventTrail(t);
    const { res } = await attempt(key, signedBy(keys.get('other')!));
    const text = await res.text();
    expect(text).not.toContain('fingerprint_mismatch');
    const events = JSON.stringify(await trail.take());
    expect(events).not.toContain(blobOf(key.publicLine).toString('base64'));
    expect(events).not.toContain((await readFile(key.file, 'utf8')).split('\n')[1]);
  });
});
