import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { ProofFailure, SshWireReader, unsignedInteger } from './ssh-wire.js';

/** The elliptic curves OpenSSH's ECDSA keys use, with the hash each key type signs with (RFC 5656 §6.2.1). */
const CURVES = {
  'ecdsa-sha2-nistp256': { name: 'nistp256', jwk: 'P-256', size: 32, hash: 'sha256' },
  'ecdsa-sha2-nistp384': { name: 'nistp384', jwk: 'P-384', size: 48, hash: 'sha384' },
  'ecdsa-sha2-nistp521': { name: 'nistp521', jwk: 'P-521', size: 66, hash: 'sha512' },
} as const;

type EcdsaKeyType = keyof typeof CURVES;

/** RSA keys proven at activate: at least 2,048 bits (NIST), at most OpenSSH's own maximum of 16,384, capped at 8,192 here. */
const RSA_BITS = { min: 2048, max: 8192 } as const;

/** An accepted host key: what verifies its signatures. */
export type HostKey =
  | { type: 'ssh-ed25519'; key: KeyObject }
  | { type: EcdsaKeyType; key: KeyObject; curveSize: number; hash: 'sha256' | 'sha384' | 'sha512' }
  | { type: 'ssh-rsa'; key: KeyObject; bits: number };

export type HostKeyType = HostKey['type'];

const base64url = (bytes: Buffer) => bytes.toString('base64url');

/** Strict base64 (RFC 4648, padded): Buffer.from(…, 'base64') skips what it cannot read, so garbage must be caught first. */
export function strictBase64(text: string, malformed: 'malformed_key' | 'malformed_signature'): Buffer {
  if (text.length === 0 || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text))
    throw new ProofFailure(malformed);
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) throw new ProofFailure(malformed);
  return bytes;
}

/** OpenSSH's fingerprint of a key: `SHA256:` and the unpadded base64 of its blob's SHA-256. */
export function sshFingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** The blob of one OpenSSH public key line (`ssh-ed25519 AAAA… comment`), its type name the blob's own. */
export function publicKeyLineBlob(line: string): Buffer {
  const [type, encoded] = line.trim().split(/[ \t]+/, 2);
  if (!type || !encoded) throw new ProofFailure('malformed_key');
  const blob = strictBase64(encoded, 'malformed_key');
  if (new SshWireReader(blob, 'malformed_key').text() !== type) throw new ProofFailure('malformed_key');
  return blob;
}

/**
 * The host key a public key blob holds, when it is one this service accepts (DESIGN §24): ed25519, ECDSA on
 * P-256/384/521, RSA of 2,048–8,192 bits. DSA, certificates (`…-cert-v01@openssh.com`), security keys (`sk-…`)
 * and anything else are `key_type_refused`: a certificate proves a CA's word, an `sk-` key a touch, neither the
 * key on this machine's disk.
 */
export function hostKeyOf(blob: Buffer): HostKey {
  const reader = new SshWireReader(blob, 'malformed_key');
  const type = reader.text();
  try {
    if (type === 'ssh-ed25519') {
      const x = reader.string();
      reader.end();
      if (x.length !== 32) throw new ProofFailure('malformed_key');
      return { type, key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: base64url(x) }, format: 'jwk' }) };
    }
    if (type in CURVES) {
      const curve = CURVES[type as EcdsaKeyType];
      const name = reader.text();
      const point = reader.string();
      reader.end();
      if (name !== curve.name || point.length !== 1 + 2 * curve.size || point[0] !== 4)
        throw new ProofFailure('malformed_key');
      const x = point.subarray(1, 1 + curve.size);
      const y = point.subarray(1 + curve.size);
      const jwk = { kty: 'EC', crv: curve.jwk, x: base64url(x), y: base64url(y) };
      return {
        type: type as EcdsaKeyType,
        key: createPublicKey({ key: jwk, format: 'jwk' }),
        curveSize: curve.size,
        hash: curve.hash,
      };
    }
    if (type === 'ssh-rsa') {
      const e = unsignedInteger(reader.string());
      const n = unsignedInteger(reader.string());
      reader.end();
      const bits = n.length === 0 || n[0] === 0 ? 0 : (n.length - 1) * 8 + n[0]!.toString(2).length;
      if (bits < RSA_BITS.min || bits > RSA_BITS.max) throw new ProofFailure('rsa_key_size');
      const jwk = { kty: 'RSA', n: base64url(n), e: base64url(e) };
      return { type, key: createPublicKey({ key: jwk, format: 'jwk' }), bits };
    }
  } catch (failure) {
    if (failure instanceof ProofFailure) throw failure;
    // node:crypto refused the numbers (a point off its curve, an even modulus): not a key.
    throw new ProofFailure('malformed_key');
  }
  throw new ProofFailure('key_type_refused');
}
