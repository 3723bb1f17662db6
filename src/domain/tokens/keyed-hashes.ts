import { createHmac, hkdfSync } from 'node:crypto';
import { sha256Hex } from './secret-hash.js';

/**
 * The hashes kept of values that could be found again by guessing (DESIGN §23): the root token a console
 * session was opened with, the client address key of an event, the subjects rate limits count, the install
 * codes (a fleet code lives 30 days beside its hint, which leaves some 55 bits to guess). With
 * KEY_ENCRYPTION_KEY set, each is an HMAC-SHA256 under a key of its own, derived from the KEK by HKDF
 * (a distinct `info` per use), so a dump of the database alone cannot test guesses against them. Without
 * a KEK (the embedded default) each is the plain SHA-256 of the same text, as before: the guide says what
 * that keeps (docs/running.md, KEY_ENCRYPTION_KEY).
 */
export interface KeyedHashes {
  /** Whether the hashes are keyed (a KEK is set). */
  readonly keyed: boolean;
  /** Of ADMIN_TOKEN, kept by a root console session: a session of another ADMIN_TOKEN (or KEK) is not root's any more. */
  rootToken(adminToken: string): string;
  /** Of a client's rate-limit address key, kept in each event it caused as `client_key_hash`. */
  clientKey(clientKey: string): string;
  /** Of a rate-limit subject, salted by the limit's name so one subject's buckets cannot be linked across limits. */
  rateLimitSubject(limitName: string, subject: string): string;
  /** Of an Idempotency-Key in its scope (the credential, method and path: `IdempotencyScope`), the key of its row. */
  idempotencyKey(scope: string): string;
  /** Of a normalised install code, kept as `install_codes.code_hash`: `installCodeFromUnkeyed` of its SHA-256. */
  installCode(normalisedCode: string): string;
  /**
   * An install code's hash from its plain SHA-256 (how codes were kept without a KEK): the same without a KEK;
   * with one, `k1:` and the HMAC of that SHA-256, so a start with a KEK keys the codes kept before it without
   * knowing them (src/domain/install-codes/keyed-code-hashes.ts).
   */
  installCodeFromUnkeyed(sha256: string): string;
}

/** What starts an install code hash kept under a KEK: the others are plain SHA-256 hex. */
export const KEYED_CODE_HASH_PREFIX = 'k1:';

type HashUse = 'root-token' | 'client-key' | 'rate-limit-subject' | 'idempotency-key' | 'install-code';

/** The text hashed for each use: the same with a key and without (without, the hashes stay what they were). */
const hashedText = {
  rootToken: (adminToken: string) => adminToken,
  clientKey: (clientKey: string) => `event\n${clientKey}`,
  rateLimitSubject: (limitName: string, subject: string) => `${limitName}\n${subject}`,
  idempotencyKey: (scope: string) => `idempotency-key\n${scope}`,
};

/** HMAC-SHA256 of text under `key`, in hex. */
export function hmacSha256Hex(key: Buffer): (text: string) => string {
  return (text) => createHmac('sha256', key).update(text).digest('hex');
}

function derivedKey(kek: Buffer, use: HashUse): Buffer {
  return Buffer.from(hkdfSync('sha256', kek, Buffer.alloc(0), `slowdns keyed hash v1\0${use}`, 32));
}

/** The hashes under `kek` (KEY_ENCRYPTION_KEY), or the plain SHA-256 ones without it. One per app, made from its config. */
export function keyedHashes(kek: Buffer | undefined): KeyedHashes {
  if (!kek) {
    return {
      keyed: false,
      rootToken: (adminToken) => sha256Hex(hashedText.rootToken(adminToken)),
      clientKey: (clientKey) => sha256Hex(hashedText.clientKey(clientKey)),
      rateLimitSubject: (limitName, subject) => sha256Hex(hashedText.rateLimitSubject(limitName, subject)),
      idempotencyKey: (scope) => sha256Hex(hashedText.idempotencyKey(scope)),
      installCode: (normalisedCode) => sha256Hex(normalisedCode),
      installCodeFromUnkeyed: (sha256) => sha256,
    };
  }
  const hmac = {
    rootToken: hmacSha256Hex(derivedKey(kek, 'root-token')),
    clientKey: hmacSha256Hex(derivedKey(kek, 'client-key')),
    rateLimitSubject: hmacSha256Hex(derivedKey(kek, 'rate-limit-subject')),
    idempotencyKey: hmacSha256Hex(derivedKey(kek, 'idempotency-key')),
    installCode: hmacSha256Hex(derivedKey(kek, 'install-code')),
  };
  const installCodeFromUnkeyed = (sha256: string) => `${KEYED_CODE_HASH_PREFIX}${hmac.installCode(sha256)}`;
  return {
    keyed: true,
    rootToken: (adminToken) => hmac.rootToken(hashedText.rootToken(adminToken)),
    clientKey: (clientKey) => hmac.clientKey(hashedText.clientKey(clientKey)),
    rateLimitSubject: (limitName, subject) => hmac.rateLimitSubject(hashedText.rateLimitSubject(limitName, subject)),
    idempotencyKey: (scope) => hmac.idempotencyKey(hashedText.idempotencyKey(scope)),
    installCode: (normalisedCode) => installCodeFromUnkeyed(sha256Hex(normalisedCode)),
    installCodeFromUnkeyed,
  };
}

/** The hashes of a service without KEY_ENCRYPTION_KEY: what tests and benchmarks that set none count with. */
export const UNKEYED_HASHES: KeyedHashes = keyedHashes(undefined);
