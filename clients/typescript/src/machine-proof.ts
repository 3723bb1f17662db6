import { createHash, sign } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { readOpenSshPrivateKey } from './openssh-private-key.js';

/** The namespace of every machine proof (DESIGN §24). */
export const PROOF_NAMESPACE = 'slowdns-activate';

/** The host keys tried, in this order, when no key file is named: the first one this process can read signs. */
export const DEFAULT_HOST_KEY_FILES = [
  '/etc/ssh/ssh_host_ed25519_key',
  '/etc/ssh/ssh_host_ecdsa_key',
  '/etc/ssh/ssh_host_rsa_key',
] as const;

/** What the machine signs: each value exactly as activate's body sends it. */
export interface ProofStatement {
  /** The service's origin (`https://activation.example.net`): scheme, host and port. */
  serviceOrigin: string;
  /** The precheck's `proof_challenge`. */
  challenge: string;
  machineId: string;
  hostname: string;
  publicIp: string;
}

/** The two fields activate takes to prove the machine. */
export interface MachineProofFields {
  ssh_host_key: string;
  ssh_key_signature: string;
}

export function proofMessage(s: ProofStatement): Buffer {
  return Buffer.from(
    `slowdns-activate/1\nservice=${s.serviceOrigin}\nchallenge=${s.challenge}\nmachine_id=${s.machineId}\nhostname=${s.hostname}\npublic_ip=${s.publicIp}\n`,
  );
}

const sshString = (value: Buffer | string) => {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
};
const mpint = (unsigned: Buffer) =>
  sshString(unsigned[0]! & 0x80 ? Buffer.concat([Buffer.alloc(1), unsigned]) : unsigned);
const trimmed = (bytes: Buffer) => {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  return bytes.subarray(start);
};
const ECDSA_HASHES: Record<string, string> = {
  'ecdsa-sha2-nistp256': 'sha256',
  'ecdsa-sha2-nistp384': 'sha384',
  'ecdsa-sha2-nistp521': 'sha512',
};

/**
 * Signs the statement with the host key in an OpenSSH private key file as `ssh-keygen -Y sign -n
 * slowdns-activate` does (PROTOCOL.sshsig, hash sha512; RSA with rsa-sha2-512), with node:crypto alone.
 */
export function signMachineProof(keyFileText: string, statement: ProofStatement): MachineProofFields {
  const key = readOpenSshPrivateKey(keyFileText);
  const signed = Buffer.concat([
    Buffer.from('SSHSIG'),
    sshString(PROOF_NAMESPACE),
    sshString(''),
    sshString('sha512'),
    sshString(createHash('sha512').update(proofMessage(statement)).digest()),
  ]);
  let signature: Buffer;
  if (key.type === 'ssh-ed25519') {
    signature = Buffer.concat([sshString(key.type), sshString(sign(null, signed, key.privateKey))]);
  } else if (key.type === 'ssh-rsa') {
    signature = Buffer.concat([sshString('rsa-sha2-512'), sshString(sign('sha512', signed, key.privateKey))]);
  } else {
    const raw = sign(ECDSA_HASHES[key.type]!, signed, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
    const half = raw.length / 2;
    const rs = Buffer.concat([mpint(trimmed(raw.subarray(0, half))), mpint(trimmed(raw.subarray(half)))]);
    signature = Buffer.concat([sshString(key.type), sshString(rs)]);
  }
  const blob = Buffer.concat([
    Buffer.from('SSHSIG'),
    Buffer.from([0, 0, 0, 1]),
    sshString(key.publicBlob),
    sshString(PROOF_NAMESPACE),
    sshString(''),
    sshString('sha512'),
    sshString(signature),
  ]);
  const lines = blob.toString('base64').match(/.{1,70}/g)!;
  return {
    ssh_host_key: `${key.type} ${key.publicBlob.toString('base64')}`,
    ssh_key_signature: ['-----BEGIN SSH SIGNATURE-----', ...lines, '-----END SSH SIGNATURE-----', ''].join('\n'),
  };
}

/** OpenSSH's fingerprint of the key in the file: `SHA256:` and the unpadded base64 of its blob's SHA-256. */
export function hostKeyFingerprint(keyFileText: string): string {
  const { publicBlob } = readOpenSshPrivateKey(keyFileText);
  return `SHA256:${createHash('sha256').update(publicBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The first of `files` this process can read, with its text; undefined when none can be read. */
export async function readableHostKey(
  files: readonly string[] = DEFAULT_HOST_KEY_FILES,
): Promise<{ file: string; text: string } | undefined> {
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined) return { file, text };
  }
  return undefined;
}
