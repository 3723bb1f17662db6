import { and, eq, isNull } from 'drizzle-orm';
import { toIsoOffset } from '../../clock.js';
import { RATE_LIMIT_OVERRIDE_LOCK, withAdvisoryLock } from '../../db/advisory-locks.js';
import type { Database } from '../../db/database.js';
import { rateLimitOverrides } from '../../db/schema.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement, timestampOf } from '../../db/statement.js';
import { ApiError } from '../../errors.js';
import { recordEvent, type ChangeContext, type NewEvent } from '../events/event-trail.js';
import { randomId } from '../tokens/secret-hash.js';
import { OVERRIDE_MAX_DAYS, type OverrideTarget, type RateLimitOverride } from './overrides.js';

export type RateLimitOverrideRow = typeof rateLimitOverrides.$inferSelect;

/** An operator's change: who (the operator token's name; `root` for ADMIN_TOKEN) and why. */
export type OperatorChange = ChangeContext & { operator: string };

export interface NewRateLimitOverride {
  target: OverrideTarget;
  limitName: string;
  quota: number;
  expiresAt: Date;
  reason: string;
}

function refused(field: string, problem: string): ApiError {
  return new ApiError('validation_failed', `The request is not valid. ${field}: ${problem}.`);
}

/** The event data of an override: what it sets, who acted and why. Never a secret. */
function eventData(row: RateLimitOverrideRow, operator: string, reason: string | null): NonNullable<NewEvent['data']> {
  return {
    rate_limit_override_id: row.id,
    subject: row.subject,
    value: row.value,
    limit_name: row.limitName,
    limit: row.quota,
    expires_at: toIsoOffset(row.expiresAt),
    operator,
    reason,
  };
}

/**
 * Puts an override in place: one transaction that replaces the override in place for the same limit
 * and target, if any (it is kept, removed, "Replaced by rlo_…"), inserts the new one and records
 * `rate_limit_override.removed` for the replaced one and `rate_limit_override.created`. Changes are
 * serialised by an advisory lock, so two operators setting one target at once leave one in place.
 * `expires_at` must lie in the future and at most `OVERRIDE_MAX_DAYS` ahead: every override ends by itself.
 */
export async function createRateLimitOverride(
  db: Database,
  input: NewRateLimitOverride,
  now: Date,
  change: OperatorChange,
): Promise<{ override: RateLimitOverrideRow; replaced: RateLimitOverrideRow[] }> {
  if (input.expiresAt.getTime() <= now.getTime())
    throw refused('expires_at', `must be in the future (it is now ${toIsoOffset(now)})`);
  if (input.expiresAt.getTime() > now.getTime() + OVERRIDE_MAX_DAYS * 86_400_000)
    throw refused('expires_at', `must be at most ${OVERRIDE_MAX_DAYS} days ahead`);
  return withAdvisoryLock(db, RATE_LIMIT_OVERRIDE_LOCK, async (tx) => {
    const id = randomId('rlo_', 8);
    const { target } = input;
    const replaced = await tx
      .update(rateLimitOverrides)
      .set({ removedAt: now, removedBy: change.operator, removalReason: `Replaced by ${id}.` })
      .where(
        and(
          eq(rateLimitOverrides.limitName, input.limitName),
          eq(rateLimitOverrides.subject, target.subject),
          eq(rateLimitOverrides.subjectKey, target.key),
          isNull(rateLimitOverrides.removedAt),
        ),
      )
      .returning();
    const [override] = await tx
      .insert(rateLimitOverrides)
      .values({
        id,
        subject: target.subject,
        value: target.value,
        subjectKey: target.key,
        limitName: input.limitName,
        quota: input.quota,
        expiresAt: input.expiresAt,
        reason: input.reason,
        createdAt: now,
        createdBy: change.operator,
      })
      .returning();
    await recordEvent(
      tx,
      change,
      now,
      ...replaced.map(
        (old): NewEvent => ({
          type: 'rate_limit_override.removed',
          data: { ...eventData(old, change.operator, old.removalReason), replaced_by: id },
        }),
      ),
      { type: 'rate_limit_override.created', data: eventData(override!, change.operator, input.reason) },
    );
    return { override: override!, replaced };
  });
}

/**
 * Removes an override: it stops applying (on every instance within the refresh bound) and stays listed
 * as removed, with who removed it and why. Idempotent: removing a removed override answers it as it
 * is, with no second event. An unknown id is 404 `rate_limit_override_not_found`.
 */
export async function removeRateLimitOverride(
  db: Database,
  { id, reason, now, change }: { id: string; reason: string | null; now: Date; change: OperatorChange },
): Promise<{ override: RateLimitOverrideRow; removed: boolean }> {
  return withAdvisoryLock(db, RATE_LIMIT_OVERRIDE_LOCK, async (tx) => {
    const [removed] = await tx
      .update(rateLimitOverrides)
      .set({ removedAt: now, removedBy: change.operator, removalReason: reason })
      .where(and(eq(rateLimitOverrides.id, id), isNull(rateLimitOverrides.removedAt)))
      .returning();
    if (removed) {
      await recordEvent(tx, change, now, {
        type: 'rate_limit_override.removed',
        data: eventData(removed, change.operator, reason),
      });
      return { override: removed, removed: true };
    }
    const [current] = await tx.select().from(rateLimitOverrides).where(eq(rateLimitOverrides.id, id));
    if (!current) throw new ApiError('rate_limit_override_not_found');
    return { override: current, removed: false };
  });
}

const LOAD_ACTIVE = namedStatement<{
  now: string;
}>(`select id, subject, value, subject_key, limit_name, quota, expires_at, reason, created_at, created_by
from rate_limit_overrides where removed_at is null and expires_at > :now::timestamptz`);

type ActiveRow = {
  id: string;
  subject: RateLimitOverride['subject'];
  value: string;
  subject_key: string;
  limit_name: string;
  quota: number;
  expires_at: string;
  reason: string;
  created_at: string;
  created_by: string;
};

/** The overrides in place at `now` (not removed, not expired): one statement, for the limiter's table. */
export async function loadActiveOverrides(db: Database, now: Date): Promise<RateLimitOverride[]> {
  const rows = await runStatement<ActiveRow, { now: string }>(db, LOAD_ACTIVE, { now: now.toISOString() });
  return rows.map((r) => ({
    id: r.id,
    subject: r.subject,
    value: r.value,
    key: r.subject_key,
    limitName: r.limit_name,
    quota: Number(r.quota),
    expiresAt: timestampOf(r.expires_at),
    reason: r.reason,
    createdAt: timestampOf(r.created_at),
    createdBy: r.created_by,
  }));
}
