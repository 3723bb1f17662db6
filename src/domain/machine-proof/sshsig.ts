import { createHash, verify } from 'node:crypto';
import { hostKeyOf, strictBase64, type HostKey } from './ssh-public-key.js';
import { ProofFailure, sshString, SshWireReader, unsignedInteger } from './ssh-wire.js';

/** OpenSSH's SSH signature format (PROTOCOL.sshsig): what `ssh-keygen -Y sign` writes. */
const MAGIC = Buffer.from('SSHSIG');
const VERSION = 1;
const BEGIN = '-----BEGIN SSH SIGNATURE-----';
const END = '-----END SSH SIGNATURE-----';

/** The hashes PROTOCOL.sshsig names for the message; both are accepted. */
const HASHES = new Set(['sha256', 'sha512']);

export interface SshSignature {
  /** The signer's public key blob. */
  publicKey: Buffer;
  namespace: string;
  hashAlgorithm: string;
  /** The signature blob: its algorithm name, then the algorithm's own bytes. */
  signature: Buffer;
}

/** The fields of an armored SSH signature; anything else than exactly its format is `malformed_signature`. */
export function parseArmoredSignature(armored: string): SshSignature {
  const lines = armored.trim().split(/\r?\n/);
  if (lines.length < 3 || lines[0] !== BEGIN || lines.at(-1) !== END) throw new ProofFailure('malformed_signature');
  const blob = strictBase64(lines.slice(1, -1).join(''), 'malformed_signature');
  const reader = new SshWireReader(blob, 'malformed_signature');
  if (!reader.raw(MAGIC.length).equals(MAGIC) || reader.uint32() !== VERSION)
    throw new ProofFailure('malformed_signature');
  const publicKey = reader.string();
  const namespace = reader.text();
  reader.string(); // reserved: OpenSSH ignores it and signs it empty
  const hashAlgorithm = reader.text();
  const signature = reader.string();
  reader.end();
  return { publicKey, namespace, hashAlgorithm, signature };
}

/** The bytes the key signed: the preamble, the namespace, an empty reserved field, the hash's name and the message's hash. */
function signedData(namespace: string, hashAlgorithm: 'sha256' | 'sha512', message: Buffer): Buffer {
  return Buffer.concat([
    MAGIC,
    sshString(namespace),
    sshString(''),
    sshString(hashAlgorithm),
    sshString(createHash(hashAlgorithm).update(message).digest()),
  ]);
}

/** Verifies `signature` over `message` in `namespace`; refuses with the check that failed. */
export function verifySshSignature(signature: SshSignature, namespace: string, message: Buffer): HostKey {
  if (signature.namespace !== namespace) throw new ProofFailure('namespace_mismatch');
  if (!HASHES.has(signature.hashAlgorithm)) throw new ProofFailure('hash_algorithm_refused');
  const hostKey = hostKeyOf(signature.publicKey);
  const data = signedData(namespace, signature.hashAlgorithm as 'sha256' | 'sha512', message);
  if (!verifiesWith(hostKey, signature.signature, data)) throw new ProofFailure('signature_invalid');
  return hostKey;
}

/** The signature blob (`string algorithm, string bytes`) verified by the key, with the hash its algorithm names. */
function verifiesWith(hostKey: HostKey, blob: Buffer, data: Buffer): boolean {
  const reader = new SshWireReader(blob, 'malformed_signature');
  const algorithm = reader.text();
  const bytes = reader.string();
  reader.end();
  try {
    switch (hostKey.type) {
      case 'ssh-ed25519':
        if (algorithm !== 'ssh-ed25519') throw new ProofFailure('signature_algorithm_refused');
        return verify(null, data, hostKey.key, bytes);
      case 'ssh-rsa': {
        // SHA-1 (`ssh-rsa`) is never accepted: only the SHA-2 signatures of RFC 8332.
        const hash = { 'rsa-sha2-256': 'sha256', 'rsa-sha2-512': 'sha512' }[algorithm];
        if (!hash) throw new ProofFailure('signature_algorithm_refused');
        const size = Math.ceil(hostKey.bits / 8);
        if (bytes.length > size) return false;
        // RFC 8332 lets a signer drop leading zero bytes: OpenSSL wants the modulus's length.
        return verify(hash, data, hostKey.key, Buffer.concat([Buffer.alloc(size - bytes.length), bytes]));
      }
      default: {
        if (algorithm !== hostKey.type) throw new ProofFailure('signature_algorithm_refused');
        const ecdsa = new SshWireReader(bytes, 'malformed_signature');
        const r = unsignedInteger(ecdsa.string());
        const s = unsignedInteger(ecdsa.string());
        ecdsa.end();
        if (r.length > hostKey.curveSize || s.length > hostKey.curveSize) return false;
        const padded = (n: Buffer) => Buffer.concat([Buffer.alloc(hostKey.curveSize - n.length), n]);
        return verify(
          hostKey.hash,
          data,
          { key: hostKey.key, dsaEncoding: 'ieee-p1363' },
          Buffer.concat([padded(r), padded(s)]),
        );
      }
    }
  } catch (failure) {
    if (failure instanceof ProofFailure) throw failure;
    return false;
  }
}
