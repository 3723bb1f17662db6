import { and, gt, isNotNull, isNull, lte, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { rateLimitOverrides } from '../../db/schema.js';
import type { RateLimitOverrideRow } from '../rate-limits/override-changes.js';
import { matching, newestFirst } from './list-query.js';
import { pageOf, type Page } from './pagination.js';
import type { TimeRange } from './time-range.js';

/** Derived, never stored: `removed` by an operator (or replaced), else `expired` past its expiry, else `active`. */
export type RateLimitOverrideStatus = 'active' | 'expired' | 'removed';

export interface RateLimitOverrideListFilter extends TimeRange {
  status?: RateLimitOverrideStatus | undefined;
  limitName?: string | undefined;
  /** One override by its id (an action answers the override it changed). */
  id?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface RateLimitOverrideListItem {
  override: RateLimitOverrideRow;
  status: RateLimitOverrideStatus;
}

export function rateLimitOverrideStatus(row: RateLimitOverrideRow, now: Date): RateLimitOverrideStatus {
  if (row.removedAt) return 'removed';
  return row.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';
}

function statusCondition(status: RateLimitOverrideStatus, now: Date): SQL | undefined {
  if (status === 'removed') return isNotNull(rateLimitOverrides.removedAt);
  return and(
    isNull(rateLimitOverrides.removedAt),
    status === 'expired' ? lte(rateLimitOverrides.expiresAt, now) : gt(rateLimitOverrides.expiresAt, now),
  );
}

/** Overrides, newest set first, each with its status at `now`: who set it and why, who removed it and why. */
export async function listRateLimitOverrides(
  db: Database,
  filter: RateLimitOverrideListFilter,
  now: Date,
): Promise<Page<RateLimitOverrideListItem>> {
  const page = newestFirst(rateLimitOverrides.createdAt, rateLimitOverrides.id, filter, [
    filter.status ? statusCondition(filter.status, now) : undefined,
    ...matching([
      [rateLimitOverrides.limitName, filter.limitName],
      [rateLimitOverrides.id, filter.id],
    ]),
  ]);
  const rows = await db
    .select()
    .from(rateLimitOverrides)
    .where(page.where)
    .orderBy(...page.orderBy)
    .limit(filter.limit + 1);
  return pageOf(
    rows,
    filter.limit,
    (override) => ({ override, status: rateLimitOverrideStatus(override, now) }),
    (override) => ({ t: override.createdAt.getTime(), id: override.id }),
  );
}
