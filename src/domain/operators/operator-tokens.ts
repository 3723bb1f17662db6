import { and, desc, eq, isNull, lt, or } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { operatorTokens } from '../../db/schema.js';
import { toIsoOffset } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { operatorEventData, recordEvent, type ChangeContext, type NewEvent } from '../events/event-trail.js';
import { randomId, randomSecret, sha256Hex } from '../tokens/secret-hash.js';

export type OperatorTokenRow = typeof operatorTokens.$inferSelect;
export type OperatorTokenScope = OperatorTokenRow['scope'];

/** Every named operator token starts so: anything else is not looked up (and is never a database read). */
const OPERATOR_TOKEN_PREFIX = 'sdo_';

/** `last_used_at` is written at most this often per token: a busy dashboard costs one write a minute, not one a request. */
const LAST_USED_GRANULARITY_MS = 60_000;

export interface NewOperatorToken {
  name: string;
  scope: OperatorTokenScope;
  expiresAt: Date | null;
}

/** The event of a change to a token: which token, never the token itself, and who changed it, why. */
function tokenEvent(
  type: 'operator_token.created' | 'operator_token.revoked',
  row: OperatorTokenRow,
  change: ChangeContext,
): NewEvent {
  return {
    type,
    data: {
      operator_token_id: row.id,
      name: row.name,
      scope: row.scope,
      expires_at: row.expiresAt ? toIsoOffset(row.expiresAt) : null,
      ...operatorEventData(change),
    },
  };
}

/**
 * Makes a token, recorded as `operator_token.created` in the same transaction: only its hash is stored; the
 * token itself is in the answer, once. Who made it (the change's operator) is kept as `created_by`.
 */
export async function createOperatorToken(
  db: Database,
  input: NewOperatorToken,
  now: Date,
  change: ChangeContext,
): Promise<{ row: OperatorTokenRow; token: string }> {
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime())
    throw new ApiError('validation_failed', 'The request is not valid. expires_at: must be in the future.');
  const token = `${OPERATOR_TOKEN_PREFIX}${randomSecret()}`;
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(operatorTokens)
      .values({
        id: randomId('opt_', 8),
        name: input.name,
        scope: input.scope,
        tokenHash: sha256Hex(token),
        createdAt: now,
        expiresAt: input.expiresAt,
        createdBy: change.operator ?? null,
      })
      .returning();
    await recordEvent(tx, change, now, tokenEvent('operator_token.created', row!, change));
    return { row: row!, token };
  });
}

/** Every token, newest first (a service has a handful). */
export async function listOperatorTokens(db: Database): Promise<OperatorTokenRow[]> {
  return db.select().from(operatorTokens).orderBy(desc(operatorTokens.createdAt), desc(operatorTokens.id));
}

/**
 * Revokes a token: it is refused from the next request on. Idempotent: a revoked token keeps its first
 * `revoked_at`, and only the first revoke is an event (`operator_token.revoked`, in the same transaction).
 */
export async function revokeOperatorToken(
  db: Database,
  id: string,
  now: Date,
  change: ChangeContext,
): Promise<{ row: OperatorTokenRow; revoked: boolean }> {
  const revoked = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(operatorTokens)
      .set({ revokedAt: now })
      .where(and(eq(operatorTokens.id, id), isNull(operatorTokens.revokedAt)))
      .returning();
    if (row) await recordEvent(tx, change, now, tokenEvent('operator_token.revoked', row, change));
    return row;
  });
  if (revoked) return { row: revoked, revoked: true };
  const [row] = await db.select().from(operatorTokens).where(eq(operatorTokens.id, id));
  if (!row) throw new ApiError('operator_token_not_found');
  return { row, revoked: false };
}

export function operatorTokenStatus(row: OperatorTokenRow, now: Date): 'active' | 'expired' | 'revoked' {
  if (row.revokedAt) return 'revoked';
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/**
 * The operator a presented token names, or undefined for an unknown, revoked or expired one. Marks it
 * used when its last use is a minute old or more (the `where` keeps two racing requests to one write).
 */
export async function operatorOfToken(
  db: Database,
  presented: string,
  now: Date,
): Promise<OperatorTokenRow | undefined> {
  if (!presented.startsWith(OPERATOR_TOKEN_PREFIX)) return undefined;
  const [row] = await db
    .select()
    .from(operatorTokens)
    .where(eq(operatorTokens.tokenHash, sha256Hex(presented)));
  if (!row || operatorTokenStatus(row, now) !== 'active') return undefined;
  const stale = new Date(now.getTime() - LAST_USED_GRANULARITY_MS);
  if (!row.lastUsedAt || row.lastUsedAt.getTime() <= stale.getTime()) {
    await db
      .update(operatorTokens)
      .set({ lastUsedAt: now })
      .where(
        and(
          eq(operatorTokens.id, row.id),
          or(isNull(operatorTokens.lastUsedAt), lt(operatorTokens.lastUsedAt, new Date(stale.getTime() + 1))),
        ),
      );
  }
  return row;
}
