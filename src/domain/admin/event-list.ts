import { and, desc, eq, lt, or } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { events } from '../../db/schema.js';
import type { EventRow, EventType } from '../events.js';
import { matching } from './list-query.js';
import { decodeCursor, pageOf, type Page } from './pagination.js';
import { withinRange, type TimeRange } from './time-range.js';

export interface EventListFilter extends TimeRange {
  type?: EventType | undefined;
  /** An install code, activation or server id: the events about it. */
  subjectId?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** The event trail, newest first (by id: the order the events were written in). */
export async function listEvents(db: Database, filter: EventListFilter): Promise<Page<EventRow>> {
  const subject = filter.subjectId;
  const conditions = [
    filter.cursor ? lt(events.id, decodeCursor(filter.cursor, 'number', false).id as number) : undefined,
    ...matching([[events.type, filter.type]]),
    subject
      ? or(eq(events.installCodeId, subject), eq(events.activationId, subject), eq(events.serverId, subject))
      : undefined,
    ...withinRange(events.occurredAt, filter),
  ];
  const rows = await db
    .select()
    .from(events)
    .where(and(...conditions))
    .orderBy(desc(events.id))
    .limit(filter.limit + 1);
  return pageOf(
    rows,
    filter.limit,
    (row) => row,
    (row) => ({ id: row.id }),
  );
}
