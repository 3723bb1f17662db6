import { asc } from 'drizzle-orm';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { ConfigError } from '../config.js';
import { SIGNING_KEY_LOCK } from '../db/advisory-locks.js';
import type { Database, DatabaseHandle } from '../db/client.js';
import { signingKeys } from '../db/schema.js';
import { randomId } from './secret-hash.js';

export const TOKEN_ALGORITHM = 'EdDSA';

/** The first key signs; every key verifies (so a retired key's tokens stay valid until they expire). */
export interface KeyRing {
  signing: { kid: string; key: CryptoKey };
  verifying: Map<string, CryptoKey>;
  /** The public half of every key, served at /.well-known/jwks.json. */
  publicJwks: { keys: JWK[] };
}

export async function keyRingFromJwks(privateJwks: JWK[]): Promise<KeyRing> {
  if (privateJwks.length === 0) throw new Error('no keys');
  const entries = await Promise.all(
    privateJwks.map(async (jwk) => {
      if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !jwk.d || !jwk.x || !jwk.kid) {
        throw new Error('every key must be a private Ed25519 JWK (kty OKP, crv Ed25519, d, x, kid)');
      }
      const { d: _d, ...publicJwk } = jwk;
      return {
        kid: jwk.kid,
        privateKey: (await importJWK({ ...jwk, alg: TOKEN_ALGORITHM }, TOKEN_ALGORITHM)) as CryptoKey,
        publicKey: (await importJWK({ ...publicJwk, alg: TOKEN_ALGORITHM }, TOKEN_ALGORITHM)) as CryptoKey,
        publicJwk: { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x, kid: jwk.kid, alg: TOKEN_ALGORITHM, use: 'sig' },
      };
    }),
  );
  const first = entries[0]!;
  return {
    signing: { kid: first.kid, key: first.privateKey },
    verifying: new Map(entries.map((e) => [e.kid, e.publicKey])),
    publicJwks: { keys: entries.map((e) => e.publicJwk) },
  };
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

/**
 * Without SIGNING_KEYS: the keys kept in the database, making the first one if there is none.
 * Call it under an advisory lock so that instances starting together agree on one key.
 */
export async function keyRingFromDatabase(db: Database, now: Date): Promise<KeyRing> {
  const rows = await db.select().from(signingKeys).orderBy(asc(signingKeys.createdAt));
  if (rows.length > 0) return keyRingFromJwks(rows.map((r) => r.privateJwk as JWK));
  const jwk = await generatePrivateJwk();
  await db.insert(signingKeys).values({ kid: jwk.kid!, privateJwk: jwk, createdAt: now });
  return keyRingFromJwks([jwk]);
}

/** SIGNING_KEYS when the operator set it; otherwise the keys kept in the database. */
export async function loadKeyRing(database: DatabaseHandle, signingKeysJson: string | undefined, now: Date): Promise<KeyRing> {
  if (signingKeysJson) return keyRingFromConfig(signingKeysJson);
  return database.withAdvisoryLock(SIGNING_KEY_LOCK, (db) => keyRingFromDatabase(db, now));
}
