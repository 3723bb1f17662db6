import { and, desc, eq, gt, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { JWK } from 'jose';
import { ConfigError } from '../../config-error.js';
import { SIGNING_KEY_LOCK, withAdvisoryLock } from '../../db/advisory-locks.js';
import type { Database } from '../../db/database.js';
import { signingKeys } from '../../db/schema.js';
import { KeyEncryptionError, openPrivateJwk, sealPrivateJwk } from './key-encryption.js';
import {
  createKeyRing,
  generatePrivateJwk,
  importSigningKey,
  keyRingFromConfig,
  MAX_VERIFYING_KEYS,
  type KeyRing,
  type KeySet,
} from './signing-keys.js';

type SigningKeyRow = typeof signingKeys.$inferSelect;

/** Newest first; of keys made in the same instant, the one still signing first. */
const newestFirst = [
  desc(signingKeys.createdAt),
  sql`${signingKeys.signingEndedAt} desc nulls first`,
  desc(signingKeys.kid),
];

/**
 * How the keys kept in the database are protected and for how long a key that stopped signing still
 * verifies: the longest token lifetime (every token it signed has expired by then) plus the refresh
 * interval of the other instances (one that has not reloaded yet may still sign with it).
 */
export interface KeyStoreOptions {
  /** KEY_ENCRYPTION_KEY: private keys are stored sealed under it. */
  kek?: Buffer | undefined;
  /** Refuse to keep a private key in clear (REQUIRE_KEY_ENCRYPTION). */
  requireEncryption?: boolean;
  /** Seconds a key verifies after it stopped signing. */
  verifyWindowSeconds: number;
  warn?: (message: string) => void;
  /** A key a reload refused (found in clear under `requireEncryption`): told once per key. */
  error?: (message: string, fields: { kid: string }) => void;
  /** The time a refresh reads the keys at (a key's verify window ends by it); left out, the `now` of the load. */
  clock?: { now(): Date };
}

/** How often instances reload the keys from the database (and so how long one may sign with a key rotated out). */
export const KEY_REFRESH_INTERVAL_MS = 60_000;

/** The verify window for the configured token lifetimes: every token a key signed has expired when it ends. */
export function verifyWindowSeconds(config: {
  precheckTokenTtlSeconds: number;
  installTokenTtlSeconds: number;
}): number {
  return Math.max(config.precheckTokenTtlSeconds, config.installTokenTtlSeconds) + KEY_REFRESH_INTERVAL_MS / 1000 + 5;
}

/** The key store's options from the service's settings: one place for the server and the `slowdns keys` command. */
export function keyStoreOptions(
  config: {
    keyEncryptionKey: Buffer | undefined;
    requireKeyEncryption: boolean;
    precheckTokenTtlSeconds: number;
    installTokenTtlSeconds: number;
  },
  extra: Pick<KeyStoreOptions, 'warn' | 'error' | 'clock'> = {},
): KeyStoreOptions {
  return {
    kek: config.keyEncryptionKey,
    requireEncryption: config.requireKeyEncryption,
    verifyWindowSeconds: verifyWindowSeconds(config),
    ...extra,
  };
}

/** Reloads the ring every KEY_REFRESH_INTERVAL_MS on an unref'd timer, so a rotation anywhere reaches this instance. */
export function startKeyRefresh(ring: KeyRing, warn: (message: string, error: unknown) => void): { stop(): void } {
  const timer = setInterval(() => {
    ring.refresh().catch((err: unknown) => warn('signing key refresh failed', err));
  }, KEY_REFRESH_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

export class SigningKeyError extends Error {}

const verifyUntil = (row: SigningKeyRow, windowSeconds: number) =>
  row.signingEndedAt ? new Date(row.signingEndedAt.getTime() + windowSeconds * 1000) : undefined;

function privateJwkOf(row: SigningKeyRow, kek: Buffer | undefined): JWK {
  if (row.privateJwk) return row.privateJwk as JWK;
  if (!row.privateJwkSealed) throw new SigningKeyError(`signing key ${row.kid} is retired and has no private key`);
  if (!kek) throw new ConfigError(`signing key ${row.kid} is encrypted: set KEY_ENCRYPTION_KEY`);
  try {
    return openPrivateJwk(kek, row.kid, row.privateJwkSealed);
  } catch (err) {
    if (err instanceof KeyEncryptionError) throw new ConfigError(`invalid KEY_ENCRYPTION_KEY: ${err.message}`);
    throw err;
  }
}

/** The private key as a row keeps it: sealed under the KEK, or in clear when there is none (and that is allowed). */
function storedForm(jwk: JWK, options: KeyStoreOptions): Pick<SigningKeyRow, 'privateJwk' | 'privateJwkSealed'> {
  if (options.kek) return { privateJwk: null, privateJwkSealed: sealPrivateJwk(options.kek, jwk.kid!, jwk) };
  if (options.requireEncryption) {
    throw new ConfigError(
      "a signing key cannot be stored in clear: REQUIRE_KEY_ENCRYPTION is true (the default on PostgreSQL); set KEY_ENCRYPTION_KEY (the service's) to store it sealed",
    );
  }
  return { privateJwk: jwk, privateJwkSealed: null };
}

/**
 * A new key joins the database's keys. Never in clear beside sealed ones: a command run without
 * KEY_ENCRYPTION_KEY must not weaken what the service keeps sealed.
 */
async function insertKey(db: Database, now: Date, options: KeyStoreOptions): Promise<string> {
  const jwk = await generatePrivateJwk();
  const stored = storedForm(jwk, options);
  if (stored.privateJwk) {
    const [sealed] = await db
      .select({ kid: signingKeys.kid })
      .from(signingKeys)
      .where(isNotNull(signingKeys.privateJwkSealed))
      .limit(1);
    if (sealed)
      throw new ConfigError(
        "the signing keys in this database are sealed: set KEY_ENCRYPTION_KEY (the service's) to store a new one sealed too",
      );
  }
  await db.insert(signingKeys).values({ kid: jwk.kid!, ...stored, createdAt: now });
  return jwk.kid!;
}

/** Keys whose verify window is over lose their private key and become `retired`. Answers their kids. */
async function retireExpiredSigningKeys(db: Database, now: Date, windowSeconds: number): Promise<string[]> {
  const rows = await db
    .update(signingKeys)
    .set({ retiredAt: now, privateJwk: null, privateJwkSealed: null })
    .where(
      and(
        isNull(signingKeys.retiredAt),
        lt(signingKeys.signingEndedAt, new Date(now.getTime() - windowSeconds * 1000)),
      ),
    )
    .returning({ kid: signingKeys.kid });
  return rows.map((r) => r.kid);
}

/**
 * The keys in use, newest first: the signer (the newest that has not stopped signing) and those still
 * verifying; undefined when none signs. Under REQUIRE_KEY_ENCRYPTION a key found in clear (put there
 * behind the service's back) is left out and handed to `refuse`: never loaded, published or signed with.
 */
async function readKeySet(
  db: Database,
  now: Date,
  options: KeyStoreOptions,
  refuse: (row: SigningKeyRow) => void = () => {},
): Promise<KeySet | undefined> {
  const rows = await db
    .select()
    .from(signingKeys)
    .where(isNull(signingKeys.retiredAt))
    .orderBy(...newestFirst);
  const allowed = rows.filter((r) => {
    if (!options.requireEncryption || !r.privateJwk) return true;
    refuse(r);
    return false;
  });
  const live = allowed.filter(
    (r) => !r.signingEndedAt || r.signingEndedAt.getTime() + options.verifyWindowSeconds * 1000 > now.getTime(),
  );
  const signer = live.find((r) => !r.signingEndedAt);
  if (!signer) return undefined;
  const keys = live.map((r) =>
    importSigningKey(privateJwkOf(r, options.kek), verifyUntil(r, options.verifyWindowSeconds)),
  );
  const signing = keys.find((k) => k.kid === signer.kid)!;
  return {
    signing: { kid: signing.kid, key: signing.privateKey },
    verifying: [signing, ...keys.filter((k) => k !== signing)],
  };
}

/**
 * At start, under the lock: keys kept in clear are sealed when a KEK is set; the first key is made
 * when there is none. Then the key set, read again on every refresh.
 */
async function prepareKeys(db: Database, now: Date, options: KeyStoreOptions): Promise<KeySet> {
  const plain = await db
    .select()
    .from(signingKeys)
    .where(and(isNull(signingKeys.retiredAt), isNotNull(signingKeys.privateJwk)));
  if (plain.length > 0 && options.kek) {
    for (const row of plain)
      await db
        .update(signingKeys)
        .set(storedForm(row.privateJwk as JWK, options))
        .where(eq(signingKeys.kid, row.kid));
    options.warn?.(`sealed ${plain.length} signing key(s) kept in clear under KEY_ENCRYPTION_KEY`);
  } else if (plain.length > 0 && options.requireEncryption) {
    throw new ConfigError(
      'invalid KEY_ENCRYPTION_KEY: REQUIRE_KEY_ENCRYPTION is set and a signing key is stored in clear; set KEY_ENCRYPTION_KEY to seal it',
    );
  }
  await retireExpiredSigningKeys(db, now, options.verifyWindowSeconds);
  const existing = await readKeySet(db, now, options);
  if (existing) return existing;
  await insertKey(db, now, options);
  return (await readKeySet(db, now, options))!;
}

/**
 * SIGNING_KEYS when the operator set it (a fixed ring: rotate by editing it); otherwise the keys kept
 * in the database, reloaded by `refresh()` so that a rotation anywhere reaches every instance.
 */
export async function loadKeyRing(
  db: Database,
  signingKeysJson: string | undefined,
  now: Date,
  options: KeyStoreOptions = { verifyWindowSeconds: 3600 },
): Promise<KeyRing> {
  const clock = options.clock ?? { now: () => now };
  if (signingKeysJson) return keyRingFromConfig(signingKeysJson);
  const initial = await withAdvisoryLock(db, SIGNING_KEY_LOCK, (tx) => prepareKeys(tx, now, options));
  const refused = new Set<string>();
  const refuse = (row: SigningKeyRow) => {
    if (refused.has(row.kid)) return;
    refused.add(row.kid);
    options.error?.(
      'a signing key stored in clear was refused: REQUIRE_KEY_ENCRYPTION is true, so it is not used; restart an instance with KEY_ENCRYPTION_KEY (it seals keys kept in clear) or retire the key',
      { kid: row.kid },
    );
  };
  // No signer among the keys allowed: the ring keeps what it has.
  return createKeyRing(initial, async () => {
    const at = clock.now();
    await retireExpiredSigningKeys(db, at, options.verifyWindowSeconds);
    return readKeySet(db, at, options, refuse);
  });
}

/**
 * Rotation: the current signer stops signing (it keeps verifying for the window) and a new key signs.
 * Answers the new kid. Refused when MAX_VERIFYING_KEYS keys verify already (the JWKS would list more).
 */
export function rotateSigningKey(db: Database, now: Date, options: KeyStoreOptions): Promise<string> {
  return withAdvisoryLock(db, SIGNING_KEY_LOCK, async (tx) => {
    const windowStart = new Date(now.getTime() - options.verifyWindowSeconds * 1000);
    const [verifying] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(signingKeys)
      .where(
        and(
          isNull(signingKeys.retiredAt),
          or(isNull(signingKeys.signingEndedAt), gt(signingKeys.signingEndedAt, windowStart)),
        ),
      );
    if ((verifying?.count ?? 0) >= MAX_VERIFYING_KEYS) {
      throw new SigningKeyError(
        `${MAX_VERIFYING_KEYS} signing keys still verify tokens: retire one (keys retire) or wait until the oldest one's tokens expired`,
      );
    }
    await tx
      .update(signingKeys)
      .set({ signingEndedAt: now })
      .where(and(isNull(signingKeys.retiredAt), isNull(signingKeys.signingEndedAt)));
    return insertKey(tx, now, options);
  });
}

type SigningKeyState = 'signing' | 'verifying' | 'expired' | 'retired';

export interface SigningKeyInfo {
  kid: string;
  state: SigningKeyState;
  encrypted: boolean;
  createdAt: Date;
  signingEndedAt: Date | null;
  /** When a key that stopped signing stops verifying. */
  verifyUntil: Date | null;
  retiredAt: Date | null;
}

/** Every key kept in the database, newest first, with its state at `now`. */
export async function listSigningKeys(db: Database, now: Date, windowSeconds: number): Promise<SigningKeyInfo[]> {
  const rows = await db
    .select()
    .from(signingKeys)
    .orderBy(...newestFirst);
  return rows.map((r) => {
    const until = verifyUntil(r, windowSeconds) ?? null;
    const state: SigningKeyState = r.retiredAt
      ? 'retired'
      : !r.signingEndedAt
        ? 'signing'
        : until!.getTime() > now.getTime()
          ? 'verifying'
          : 'expired';
    return {
      kid: r.kid,
      state,
      encrypted: r.privateJwkSealed !== null,
      createdAt: r.createdAt,
      signingEndedAt: r.signingEndedAt,
      verifyUntil: until,
      retiredAt: r.retiredAt,
    };
  });
}

/**
 * Retires a key that stopped signing: its private key is deleted and it is no longer published or
 * trusted. Refused while it signs, and while tokens it signed may still be valid unless `force` (those
 * tokens then fail). Idempotent.
 */
export async function retireSigningKey(
  db: Database,
  { kid, now, windowSeconds, force = false }: { kid: string; now: Date; windowSeconds: number; force?: boolean },
): Promise<SigningKeyInfo> {
  return withAdvisoryLock(db, SIGNING_KEY_LOCK, async (tx) => {
    const [row] = await tx.select().from(signingKeys).where(eq(signingKeys.kid, kid));
    if (!row) throw new SigningKeyError(`no signing key ${kid}`);
    if (!row.retiredAt) {
      if (!row.signingEndedAt) throw new SigningKeyError(`signing key ${kid} is the one signing: rotate first`);
      const until = verifyUntil(row, windowSeconds)!;
      if (until.getTime() > now.getTime() && !force) {
        throw new SigningKeyError(
          `signing key ${kid} may still verify tokens until ${until.toISOString()}; retire it then, or use --force (its tokens stop working)`,
        );
      }
      await tx
        .update(signingKeys)
        .set({ retiredAt: now, privateJwk: null, privateJwkSealed: null })
        .where(eq(signingKeys.kid, kid));
    }
    return (await listSigningKeys(tx, now, windowSeconds)).find((k) => k.kid === kid)!;
  });
}
