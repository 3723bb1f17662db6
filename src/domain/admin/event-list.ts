import { eq, or } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { events } from '../../db/schema.js';
import type { EventRow, EventType } from '../events.js';
import { matching, newestFirst } from './list-query.js';
import { pageOf, type Page } from './pagination.js';
import type { TimeRange } from './time-range.js';

export interface EventListFilter extends TimeRange {
  type?: EventType | undefined;
  /** An install code, activation or server id: the events about it. */
  subjectId?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/**
 * The event trail, newest first by (occurred_at, id): the table is partitioned by occurred_at, so a page
 * reads the newest partitions down to its cursor's time and stops at its limit.
 */
export async function listEvents(db: Database, filter: EventListFilter): Promise<Page<EventRow>> {
  const subject = filter.subjectId;
  const page = newestFirst(events.occurredAt, events.id, filter, [
    ...matching([[events.type, filter.type]]),
    subject
      ? or(eq(events.installCodeId, subject), eq(events.activationId, subject), eq(events.serverId, subject))
      : undefined,
  ]);
  const rows = await db
    .select()
    .from(events)
    .where(page.where)
    .orderBy(...page.orderBy)
    .limit(filter.limit + 1);
  return pageOf(
    rows,
    filter.limit,
    (row) => row,
    (row) => ({ t: row.occurredAt.getTime(), id: row.id }),
  );
}
