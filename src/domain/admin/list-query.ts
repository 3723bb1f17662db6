import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { afterCursor } from './pagination.js';
import { withinRange, type TimeRange } from './time-range.js';

/** `column = value` for each filter an operator gave; one left out (or empty) narrows nothing. */
export function matching(filters: ReadonlyArray<readonly [PgColumn, string | undefined]>): SQL[] {
  return filters.flatMap(([column, value]) => (value ? [eq(column, value)] : []));
}

/**
 * What a list ordered newest first by (`time`, `id`) selects: the rows after the cursor, within the
 * time range on `time`, that meet every one of `conditions` (an undefined one is no condition).
 */
export function newestFirst(
  time: PgColumn,
  id: PgColumn,
  filter: TimeRange & { cursor?: string | undefined },
  conditions: ReadonlyArray<SQL | undefined>,
): { where: SQL | undefined; orderBy: SQL[] } {
  const page = afterCursor(time, id, filter.cursor);
  return { where: and(page.where, ...conditions, ...withinRange(time, filter)), orderBy: page.orderBy };
}
