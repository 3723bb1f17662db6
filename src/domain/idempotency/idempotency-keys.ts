import { eq, lte, sql } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { hasSqlState } from '../../db/database-errors.js';
import { idempotencyKeys } from '../../db/schema.js';
import { ApiError } from '../../errors.js';

/** How long a stored answer is replayed (DESIGN §27): a day, and an hour for one that shows a secret. */
export const ANSWER_KEPT_SECONDS = 24 * 60 * 60;
export const SECRET_ANSWER_KEPT_SECONDS = 60 * 60;

/** How long a request waits for another one holding the same key before 409 `idempotency_key_in_flight`. */
const IN_FLIGHT_WAIT = '1s';

/** An answer kept under a key: its status and its sealed body. */
export interface StoredAnswer {
  status: number;
  sealedAnswer: string;
}

const inFlight = () => new ApiError('idempotency_key_in_flight', undefined, { 'Retry-After': '1' });

/**
 * The first statement of a change made under an Idempotency-Key, in that change's transaction: writes the
 * key's row, which a concurrent request with the same key waits on (at most `IN_FLIGHT_WAIT`, then 409
 * `idempotency_key_in_flight`) until this transaction ends. Answers undefined when the key is this
 * request's to use (new, or its row expired and not yet pruned), or the answer stored under it; another
 * request under the key is 422 `idempotency_key_mismatch`.
 */
export async function claimIdempotencyKey(
  tx: Database,
  claim: { keyHash: string; fingerprint: string; now: Date },
): Promise<StoredAnswer | undefined> {
  const fresh = {
    fingerprint: claim.fingerprint,
    status: null,
    sealedAnswer: null,
    createdAt: claim.now,
    expiresAt: new Date(claim.now.getTime() + ANSWER_KEPT_SECONDS * 1000),
  };
  let claimed: unknown[];
  try {
    await tx.execute(sql.raw(`set local lock_timeout = '${IN_FLIGHT_WAIT}'`));
    claimed = await tx
      .insert(idempotencyKeys)
      .values({ keyHash: claim.keyHash, ...fresh })
      .onConflictDoUpdate({
        target: idempotencyKeys.keyHash,
        set: fresh,
        setWhere: lte(idempotencyKeys.expiresAt, claim.now),
      })
      .returning({ keyHash: idempotencyKeys.keyHash });
    await tx.execute(sql`set local lock_timeout to default`);
  } catch (error) {
    if (hasSqlState(error, '55P03')) throw inFlight();
    throw error;
  }
  if (claimed.length > 0) return undefined;
  const [row] = await tx.select().from(idempotencyKeys).where(eq(idempotencyKeys.keyHash, claim.keyHash));
  if (!row) throw inFlight();
  if (row.fingerprint !== claim.fingerprint) throw new ApiError('idempotency_key_mismatch');
  if (row.status === null || row.sealedAnswer === null) throw inFlight();
  return { status: row.status, sealedAnswer: row.sealedAnswer };
}

/** The change's 2xx answer, kept under its key in the change's own transaction, until `expiresAt`. */
export async function keepAnswer(
  tx: Database,
  kept: StoredAnswer & { keyHash: string; expiresAt: Date },
): Promise<void> {
  await tx
    .update(idempotencyKeys)
    .set({ status: kept.status, sealedAnswer: kept.sealedAnswer, expiresAt: kept.expiresAt })
    .where(eq(idempotencyKeys.keyHash, kept.keyHash));
}

/** Deletes the keys whose answers are no longer replayed (by the periodic pass); answers how many. */
export async function pruneIdempotencyKeys(tx: Database, now: Date): Promise<number> {
  const pruned = await tx
    .delete(idempotencyKeys)
    .where(lte(idempotencyKeys.expiresAt, now))
    .returning({ keyHash: idempotencyKeys.keyHash });
  return pruned.length;
}
