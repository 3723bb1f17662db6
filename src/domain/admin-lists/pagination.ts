import { and, desc, lte, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { isAcceptedTime } from '../../clock.js';
import { ApiError } from '../../errors.js';

/** The most items one page of an admin list holds, and how many when the caller does not say. */
export const MAX_PAGE_SIZE = 200;
export const DEFAULT_PAGE_SIZE = 50;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Where the previous page ended: the sort time (ms) and id of its last item. */
interface CursorPosition {
  t: number;
  id: string | number;
}

/** Opaque to callers: base64url of the last item's position, so nothing relies on its shape. */
export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

function decodeCursor(cursor: string, idKind: 'string' | 'number'): CursorPosition {
  const invalid = () =>
    new ApiError('validation_failed', 'The request is not valid. cursor: is not a cursor this list gave.');
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const p = position as CursorPosition;
  if (typeof p !== 'object' || p === null || !validId(p.id, idKind)) throw invalid();
  if (!validTime(p.t)) throw invalid();
  return p;
}

/** A whole millisecond within the times the API accepts (ACCEPTED_TIMES): outside them, no list gave it. */
const validTime = (t: unknown): t is number => typeof t === 'number' && Number.isSafeInteger(t) && isAcceptedTime(t);

/** An id as the lists give them: an event's bigint id within JavaScript's safe integers, or a short printable text id. */
function validId(id: unknown, kind: 'string' | 'number'): boolean {
  if (kind === 'number') return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0;
  return typeof id === 'string' && /^[\x21-\x7e]{1,64}$/.test(id);
}

/**
 * Keyset pagination, newest first: items strictly after the cursor in the order (time desc, id desc).
 * Rows added while a client pages are newer than its cursor, so they never shift a later page: no item
 * is repeated and none is skipped. The cursor's id is read as the id column holds it (an event's bigint,
 * any other list's text id); `time <= t` is said on its own as well, so a table partitioned by that
 * time (events) reads only the partitions up to the cursor.
 */
export function afterCursor(
  time: PgColumn,
  id: PgColumn,
  cursor: string | undefined,
): { where: SQL | undefined; orderBy: SQL[] } {
  const orderBy = [desc(time), desc(id)];
  if (!cursor) return { where: undefined, orderBy };
  const { t, id: lastId } = decodeCursor(cursor, id.dataType === 'number' ? 'number' : 'string');
  const at = new Date(t);
  // A row comparison, not `time < t or (time = t and id < id)`: PostgreSQL reads it as one range of the
  // (time, id) index each list has, so a page starts where the last one ended instead of scanning the
  // index from the top past every row already given (an export of a million rows read each page's
  // predecessors again: 5,000 rows/s). docs/measurements.md has both plans.
  const after = sql`(${time}, ${id}) < (${at.toISOString()}::timestamptz, ${lastId})`;
  return { where: and(lte(time, at), after), orderBy };
}

/** The time a cursor of a list ordered by (time, id) carries: where its next page begins. */
export function cursorTime(cursor: string, idKind: 'string' | 'number'): Date {
  return new Date(decodeCursor(cursor, idKind).t);
}

/** Fetches one more row than the page holds to know whether there is a next page. */
export function pageOf<R, T>(
  rows: R[],
  limit: number,
  toItem: (row: R) => T,
  position: (row: R) => CursorPosition,
): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(toItem),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(position(last)) : null,
  };
}
