import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { ConfigError } from '../../config-error.js';
import { randomId } from './secret-hash.js';
import { SignedTokenMemo } from './signed-token-memo.js';

export const TOKEN_ALGORITHM = 'EdDSA';

export const KID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** A key that verifies: until `verifyUntil` (a key that stopped signing), or for as long as it is kept. */
export interface VerifyingKey {
  kid: string;
  key: KeyObject;
  publicJwk: PublicJwk;
  verifyUntil: Date | undefined;
}

/** What a ring holds at one moment: the key that signs, and every key that verifies (the signer first). */
export interface KeySet {
  signing: { kid: string; key: KeyObject };
  verifying: VerifyingKey[];
}

export interface KeyRing {
  /** The key new tokens are signed with. */
  readonly signing: { kid: string; key: KeyObject };
  /** The key that verifies tokens with this `kid` at `now`; an unknown kid first reloads the ring (another instance may have rotated). */
  verifierFor(kid: string, now: Date): Promise<KeyObject | undefined>;
  /** Exactly the public keys that may still verify a token at `now`: served at /.well-known/jwks.json. */
  publicJwks(now: Date): { keys: PublicJwk[] };
  /** Reloads the keys from where they are kept (the database); a ring from SIGNING_KEYS has nothing to reload. */
  refresh(): Promise<void>;
  /** The tokens signed with this ring in this process, whose signatures need no second check. */
  readonly signed: SignedTokenMemo;
}

/** An unknown kid reloads the ring at most this often, so a flood of forged kids costs one query per interval. */
const UNKNOWN_KID_RELOAD_MS = 5_000;

/** Whether a kid of `before` names other key material in `after` (kids are random, but a row can be edited). */
function kidRebound(before: KeySet, after: KeySet): boolean {
  return after.verifying.some((k) => before.verifying.some((b) => b.kid === k.kid && b.publicJwk.x !== k.publicJwk.x));
}

/** `reload` answers the keys now kept, or undefined to keep the current ones. */
export function createKeyRing(initial: KeySet, reload?: () => Promise<KeySet | undefined>): KeyRing {
  let current = initial;
  let reloading: Promise<void> | undefined;
  let lastReload = Number.NEGATIVE_INFINITY;
  const signed = new SignedTokenMemo();
  const refresh = () =>
    (reloading ??= (async () => {
      try {
        const next = await reload?.();
        if (next) {
          // A remembered token was signed by the key its kid named then: never let it pass under another.
          if (kidRebound(current, next)) signed.clear();
          current = next;
        }
        lastReload = performance.now();
      } finally {
        reloading = undefined;
      }
    })());
  const find = (kid: string, now: Date) =>
    current.verifying.find(
      (k) => k.kid === kid && (k.verifyUntil === undefined || k.verifyUntil.getTime() > now.getTime()),
    );
  return {
    get signing() {
      return current.signing;
    },
    async verifierFor(kid, now) {
      let found = find(kid, now);
      if (
        !found &&
        reload &&
        !current.verifying.some((k) => k.kid === kid) &&
        performance.now() - lastReload >= UNKNOWN_KID_RELOAD_MS
      ) {
        await refresh();
        found = find(kid, now);
      }
      return found?.key;
    },
    publicJwks: (now) => ({ keys: current.verifying.filter((k) => find(k.kid, now)).map((k) => k.publicJwk) }),
    refresh,
    signed,
  };
}

/**
 * A private Ed25519 JWK → the signer and verifier it gives, as the node:crypto keys compact-jws.ts signs
 * and verifies with (made from the JWK itself: Node 24 deprecates making them from a non-extractable
 * WebCrypto key, DEP0204).
 */
export function importSigningKey(jwk: JWK, verifyUntil?: Date): VerifyingKey & { privateKey: KeyObject } {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !jwk.d || !jwk.x || !jwk.kid) {
    throw new Error('every key must be a private Ed25519 JWK (kty OKP, crv Ed25519, d, x, kid)');
  }
  // The kid travels in every token's header and in the JWKS: the same character set as every id.
  if (!KID_PATTERN.test(jwk.kid)) throw new Error("every key's kid must be 1 to 64 characters of A-Z a-z 0-9 . _ -");
  const privateKey = createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
  // The private key is made from `d` alone: an `x` that is not its public half would publish a key
  // that verifies none of the tokens signed.
  const key = createPublicKey(privateKey);
  if (key.export({ format: 'jwk' }).x !== jwk.x) throw new Error(`key ${jwk.kid}: x is not the public key of d`);
  return {
    kid: jwk.kid,
    privateKey,
    key,
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: jwk.kid, alg: TOKEN_ALGORITHM, use: 'sig' },
    verifyUntil,
  };
}

/** A fixed ring: the first key signs, every key verifies for as long as it is listed. */
/**
 * At most this many keys verify tokens at once (the JWKS never lists more): a rotation that would make
 * one more is refused, as is a SIGNING_KEYS with more.
 */
export const MAX_VERIFYING_KEYS = 16;

export async function keyRingFromJwks(privateJwks: JWK[]): Promise<KeyRing> {
  if (privateJwks.length === 0) throw new Error('no keys');
  if (privateJwks.length > MAX_VERIFYING_KEYS)
    throw new Error(`${privateJwks.length} keys; at most ${MAX_VERIFYING_KEYS}`);
  const keys = privateJwks.map((jwk) => importSigningKey(jwk));
  const first = keys[0]!;
  return createKeyRing({ signing: { kid: first.kid, key: first.privateKey }, verifying: keys });
}

export async function generatePrivateJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(TOKEN_ALGORITHM, { crv: 'Ed25519', extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomId('key_', 8) };
}

/** SIGNING_KEYS is a JWKS JSON document of private keys. A bad one stops the start. */
export async function keyRingFromConfig(signingKeysJson: string): Promise<KeyRing> {
  try {
    const parsed = JSON.parse(signingKeysJson) as { keys?: JWK[] };
    return await keyRingFromJwks(Array.isArray(parsed.keys) ? parsed.keys : []);
  } catch (err) {
    throw new ConfigError(`invalid SIGNING_KEYS: ${err instanceof SyntaxError ? 'not JSON' : (err as Error).message}`);
  }
}
