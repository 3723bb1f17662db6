import { createPrivateKey, type KeyObject } from 'node:crypto';

/** Thrown for a key file this client cannot sign with: encrypted, not OpenSSH's format, or another key type. */
export class HostKeyUnusableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HostKeyUnusableError';
  }
}

/** A host key read from its OpenSSH private key file: what signs, and its public blob. */
export interface OpenSshPrivateKey {
  /** `ssh-ed25519`, `ecdsa-sha2-nistp256` (384, 521) or `ssh-rsa`. */
  type: string;
  publicBlob: Buffer;
  privateKey: KeyObject;
}

const MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');
const CURVES: Record<string, { jwk: string; size: number }> = {
  nistp256: { jwk: 'P-256', size: 32 },
  nistp384: { jwk: 'P-384', size: 48 },
  nistp521: { jwk: 'P-521', size: 66 },
};

class Reader {
  private at = 0;
  constructor(private readonly bytes: Buffer) {}
  uint32(): number {
    if (this.at + 4 > this.bytes.length) throw new HostKeyUnusableError('the key file is cut short');
    const value = this.bytes.readUInt32BE(this.at);
    this.at += 4;
    return value;
  }
  string(): Buffer {
    const length = this.uint32();
    if (length > this.bytes.length - this.at) throw new HostKeyUnusableError('the key file is cut short');
    this.at += length;
    return this.bytes.subarray(this.at - length, this.at);
  }
}

const b64u = (bytes: Buffer) => bytes.toString('base64url');
const unsigned = (mpint: Buffer) => {
  let start = 0;
  while (start < mpint.length - 1 && mpint[start] === 0) start += 1;
  return mpint.subarray(start);
};
const big = (bytes: Buffer) => BigInt(`0x${bytes.toString('hex') || '0'}`);
const bytesOf = (n: bigint) => {
  const hex = n.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
};
const padded = (bytes: Buffer, size: number) => Buffer.concat([Buffer.alloc(Math.max(0, size - bytes.length)), bytes]);

/**
 * Reads an unencrypted OpenSSH private key file (`-----BEGIN OPENSSH PRIVATE KEY-----`, what `ssh-keygen`
 * writes for host keys) into a node:crypto key: ed25519, ECDSA P-256/384/521 or RSA. PROTOCOL.key describes
 * the format; nothing native is needed.
 */
export function readOpenSshPrivateKey(text: string): OpenSshPrivateKey {
  const match = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/.exec(text);
  if (!match) throw new HostKeyUnusableError('not an OpenSSH private key file');
  const bytes = Buffer.from(match[1]!.replace(/\s+/g, ''), 'base64');
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) throw new HostKeyUnusableError('not an OpenSSH private key file');
  const file = new Reader(bytes.subarray(MAGIC.length));
  const cipher = file.string().toString();
  file.string(); // kdf name
  file.string(); // kdf options
  if (cipher !== 'none') throw new HostKeyUnusableError('the key file is encrypted with a passphrase');
  if (file.uint32() !== 1) throw new HostKeyUnusableError('the key file holds more than one key');
  const publicBlob = file.string();
  const secret = new Reader(file.string());
  // Two equal check numbers: the section was decrypted (or read) whole.
  const check = secret.uint32();
  if (check !== secret.uint32()) throw new HostKeyUnusableError('the key file is damaged');
  const type = secret.string().toString();
  return { type, publicBlob, privateKey: privateKeyOf(type, secret) };
}

function privateKeyOf(type: string, secret: Reader): KeyObject {
  if (type === 'ssh-ed25519') {
    const x = secret.string();
    const seedAndPublic = secret.string();
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: b64u(x), d: b64u(seedAndPublic.subarray(0, 32)) };
    return createPrivateKey({ key: jwk, format: 'jwk' });
  }
  if (type.startsWith('ecdsa-sha2-')) {
    const curve = CURVES[secret.string().toString()];
    if (!curve) throw new HostKeyUnusableError(`the curve of ${type} is not one this client signs with`);
    const point = secret.string();
    const d = unsigned(secret.string());
    const jwk = {
      kty: 'EC',
      crv: curve.jwk,
      x: b64u(point.subarray(1, 1 + curve.size)),
      y: b64u(point.subarray(1 + curve.size)),
      d: b64u(padded(d, curve.size)),
    };
    return createPrivateKey({ key: jwk, format: 'jwk' });
  }
  if (type === 'ssh-rsa') {
    const [n, e, d, iqmp, p, q] = [1, 2, 3, 4, 5, 6].map(() => unsigned(secret.string())) as Buffer[];
    const dp = bytesOf(big(d!) % (big(p!) - 1n));
    const dq = bytesOf(big(d!) % (big(q!) - 1n));
    const jwk = {
      kty: 'RSA',
      n: b64u(n!),
      e: b64u(e!),
      d: b64u(d!),
      p: b64u(p!),
      q: b64u(q!),
      dp: b64u(dp),
      dq: b64u(dq),
      qi: b64u(iqmp!),
    };
    return createPrivateKey({ key: jwk, format: 'jwk' });
  }
  throw new HostKeyUnusableError(`${type} keys cannot prove a machine (ed25519, ecdsa or rsa only)`);
}
