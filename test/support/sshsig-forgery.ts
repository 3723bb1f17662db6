import { createHash, sign } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { readOpenSshPrivateKey } from '../../clients/typescript/src/openssh-private-key.js';

/** An SSH `string`. */
export const sshString = (value: Buffer | string) => {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
};

/** An armored SSH signature of any fields, for the forgeries a real ssh-keygen refuses to make. */
export function armoredSignature({
  publicBlob,
  namespace = 'slowdns-activate',
  hash = 'sha512',
  signatureBlob,
}: {
  publicBlob: Buffer;
  namespace?: string;
  hash?: string;
  signatureBlob: Buffer;
}): string {
  const blob = Buffer.concat([
    Buffer.from('SSHSIG'),
    Buffer.from([0, 0, 0, 1]),
    sshString(publicBlob),
    sshString(namespace),
    sshString(''),
    sshString(hash),
    sshString(signatureBlob),
  ]);
  return [
    '-----BEGIN SSH SIGNATURE-----',
    ...blob.toString('base64').match(/.{1,70}/g)!,
    '-----END SSH SIGNATURE-----',
  ].join('\n');
}

/** The bytes PROTOCOL.sshsig has a key sign for `message`. */
function signedData(message: string, { namespace = 'slowdns-activate', hash = 'sha512' } = {}): Buffer {
  return Buffer.concat([
    Buffer.from('SSHSIG'),
    sshString(namespace),
    sshString(''),
    sshString(hash),
    sshString(createHash(hash).update(message).digest()),
  ]);
}

/**
 * A signature by an RSA host key file (made by ssh-keygen) with the signature algorithm given: `ssh-rsa`
 * (SHA-1, which `ssh-keygen -Y sign` no longer makes) or `rsa-sha2-256`.
 */
export async function rsaSignature(keyFile: string, message: string, algorithm: 'ssh-rsa' | 'rsa-sha2-256') {
  const key = readOpenSshPrivateKey(await readFile(keyFile, 'utf8'));
  const hash = algorithm === 'ssh-rsa' ? 'sha1' : 'sha256';
  const signature = sign(hash, signedData(message), key.privateKey);
  return armoredSignature({
    publicBlob: key.publicBlob,
    signatureBlob: Buffer.concat([sshString(algorithm), sshString(signature)]),
  });
}

/** An ed25519 signature made by the key file, under another public key blob (a certificate of it, a security key). */
export async function ed25519SignatureAs(keyFile: string, publicBlob: Buffer, message: string, algorithm: string) {
  const key = readOpenSshPrivateKey(await readFile(keyFile, 'utf8'));
  const signature = sign(null, signedData(message), key.privateKey);
  return armoredSignature({ publicBlob, signatureBlob: Buffer.concat([sshString(algorithm), sshString(signature)]) });
}

/** The blob of a public key line. */
export const blobOf = (line: string) => Buffer.from(line.split(' ')[1]!, 'base64');

/** OpenSSH's fingerprint of a blob. */
export const fingerprintOf = (blob: Buffer) =>
  `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
