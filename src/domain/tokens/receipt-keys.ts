import { desc, gt, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { receiptKeys } from '../../db/schema.js';
import { KEY_REFRESH_INTERVAL_MS } from './signing-key-store.js';
import { TOKEN_ALGORITHM, type KeyRing, type PublicJwk } from './signing-keys.js';

/** At most this many receipt keys are published beside the ring's (one rotation a day for a year fits). */
export const MAX_RECEIPT_KEYS = 512;

const DAY_MS = 24 * 3600 * 1000;

/**
 * Records that `kid` signs receipts now: kept with its public half, `last_signed_at` moved forward. A kid
 * already kept with other key material (a SIGNING_KEYS entry edited in place) keeps the first: the
 * receipts it signed must go on verifying.
 */
async function recordReceiptKey(db: Database, kid: string, x: string, now: Date): Promise<void> {
  await db
    .insert(receiptKeys)
    .values({ kid, publicKey: x, firstSignedAt: now, lastSignedAt: now })
    .onConflictDoUpdate({
      target: receiptKeys.kid,
      set: { lastSignedAt: sql`greatest(${receiptKeys.lastSignedAt}, excluded.last_signed_at)` },
      where: sql`${receiptKeys.publicKey} = excluded.public_key`,
    });
}

/** The receipt keys whose last receipt is recent enough to verify (`verifyDays`, plus the minute a record may lag). */
async function readReceiptKeys(db: Database, now: Date, verifyDays: number): Promise<PublicJwk[]> {
  const since = new Date(now.getTime() - verifyDays * DAY_MS - KEY_REFRESH_INTERVAL_MS);
  const rows = await db
    .select()
    .from(receiptKeys)
    .where(gt(receiptKeys.lastSignedAt, since))
    .orderBy(desc(receiptKeys.lastSignedAt))
    .limit(MAX_RECEIPT_KEYS);
  return rows.map((r) => ({
    kty: 'OKP',
    crv: 'Ed25519',
    x: r.publicKey,
    kid: r.kid,
    alg: TOKEN_ALGORITHM,
    use: 'sig',
  }));
}

/**
 * The keys that sign receipts, kept for RECEIPT_VERIFY_DAYS after their last receipt, and the JWKS that
 * publishes them beside the token ring's. Off the hot path: a signer is recorded once when it starts
 * signing receipts on this instance, then at most once a minute; the published list is read at most once
 * a minute. Tokens never verify against these keys: only the ring's do.
 */
export class ReceiptKeys {
  private recorded: { kid: string; at: number } | undefined;
  private recording: Promise<void> | undefined;
  private published: { keys: PublicJwk[]; readAt: number } | undefined;

  constructor(
    private readonly db: Database,
    private readonly ring: KeyRing,
    private readonly clock: Clock,
    private readonly verifyDays: number,
  ) {}

  /** The ring's signer, once it is kept as a receipt key: what signs a receipt. */
  async signer(): Promise<KeyRing['signing']> {
    for (;;) {
      const signing = this.ring.signing;
      const now = this.clock.now();
      if (
        this.recorded?.kid === signing.kid &&
        now.getTime() - this.recorded.at < KEY_REFRESH_INTERVAL_MS &&
        now.getTime() >= this.recorded.at
      )
        return signing;
      // One record at a time; a signer that changed meanwhile is recorded on the next turn.
      this.recording ??= this.record(signing.kid, now).finally(() => (this.recording = undefined));
      await this.recording;
    }
  }

  private async record(kid: string, now: Date): Promise<void> {
    const x = this.ring.publicJwks(now).keys.find((k) => k.kid === kid)?.x;
    if (!x) throw new Error(`signing key ${kid} is not among the ring's public keys`);
    await recordReceiptKey(this.db, kid, x, now);
    this.recorded = { kid, at: now.getTime() };
    this.published = undefined;
  }

  /** Forgets what was recorded and read (the table was emptied behind this instance's back: tests). */
  invalidate(): void {
    this.recorded = undefined;
    this.published = undefined;
  }

  /** The token ring's keys, then every other key a receipt that may still be checked was signed with. */
  async publicJwks(now: Date): Promise<{ keys: PublicJwk[] }> {
    if (
      !this.published ||
      now.getTime() - this.published.readAt >= KEY_REFRESH_INTERVAL_MS ||
      now.getTime() < this.published.readAt
    ) {
      this.published = { keys: await readReceiptKeys(this.db, now, this.verifyDays), readAt: now.getTime() };
    }
    const ring = this.ring.publicJwks(now).keys;
    return { keys: [...ring, ...this.published.keys.filter((k) => !ring.some((r) => r.kid === k.kid))] };
  }
}
