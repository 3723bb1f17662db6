import { eq, or } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { events } from '../../db/schema.js';
import type { EventRow, EventType } from '../events/event-trail.js';
import { matching, newestFirst } from './list-query.js';
import { cursorTime, pageOf, type Page } from './pagination.js';
import type { TimeRange } from './time-range.js';

export interface EventListFilter extends TimeRange {
  type?: EventType | undefined;
  /** An install code, activation or server id: the events about it. */
  subjectId?: string | undefined;
  limit: number;
  cursor?: string | undefined;
  /** Where a first page looks back from (a later page looks back from its cursor's time). */
  now: Date;
  /** `EVENT_RETENTION_DAYS`: events older than this are dropped, so windows of a month go back this far only. */
  retentionDays: number;
}

const DAY_MS = 86_400_000;
/**
 * The windows a page reads, newest first, in days back from where it starts: a day, to a week, to a month,
 * then a month at a time (MONTH_DAYS) down to the retention, and last everything older (the partitions
 * retention has not dropped yet, and the default one). Each window is its own statement bounded on both
 * sides, so it is planned over its own day partitions only: one unbounded statement planned all ~95 of
 * them with their indexes (~20 ms warm, 227 ms on a fresh connection; docs/measurements.md, "Fleet-size
 * reads"), and the windows were nested, so a filter that filled no page planned the newest ones four
 * times. The windows do not overlap: a page takes the rows of each in turn until it has its limit.
 */
const FIRST_WINDOWS_DAYS = [1, 7, 31];
const MONTH_DAYS = 31;

/**
 * The event trail, newest first by (occurred_at, id): the table is partitioned by occurred_at, so a page
 * reads the newest partitions down to its cursor's time and stops at its limit.
 */
export async function listEvents(db: Database, filter: EventListFilter): Promise<Page<EventRow>> {
  const subject = filter.subjectId;
  const from = filter.cursor ? cursorTime(filter.cursor, 'number') : (filter.until ?? filter.now);
  /** The rows of the window [since, until) (either side open when undefined) after the cursor: at most `limit`. */
  const read = (window: TimeRange, limit: number) => {
    const page = newestFirst(events.occurredAt, events.id, { cursor: filter.cursor, ...window }, [
      ...matching([[events.type, filter.type]]),
      subject
        ? or(eq(events.installCodeId, subject), eq(events.activationId, subject), eq(events.serverId, subject))
        : undefined,
    ]);
    return db
      .select()
      .from(events)
      .where(page.where)
      .orderBy(...page.orderBy)
      .limit(limit);
  };
  // The windows count back from the cursor's time, or from now when the filter's `until` is later: the first
  // window still reads up to `until`. Below the floor one last statement reads everything older (down to
  // `since`, if given): retention's floor, or `since` when that is later. At most 3 + retention / 31 + 1 statements.
  const start = Math.min(from.getTime(), filter.now.getTime());
  const retained = filter.now.getTime() - filter.retentionDays * DAY_MS;
  const floor = Math.max(filter.since?.getTime() ?? retained, retained);
  const rows: EventRow[] = [];
  let until = filter.until;
  for (let i = 0; ; i++) {
    const days = FIRST_WINDOWS_DAYS[i] ?? FIRST_WINDOWS_DAYS.at(-1)! + (i - FIRST_WINDOWS_DAYS.length + 1) * MONTH_DAYS;
    const windowStart = new Date(start - days * DAY_MS);
    const last = windowStart.getTime() <= floor;
    rows.push(...(await read({ since: last ? filter.since : windowStart, until }, filter.limit + 1 - rows.length)));
    if (rows.length > filter.limit || last) break;
    until = windowStart;
  }
  return pageOf(
    rows,
    filter.limit,
    (row) => row,
    (row) => ({ t: row.occurredAt.getTime(), id: row.id }),
  );
}
