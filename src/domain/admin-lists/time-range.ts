import { gte, lt, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/** `since` inclusive, `until` exclusive, on the time a list is ordered by. */
export interface TimeRange {
  since?: Date | undefined;
  until?: Date | undefined;
}

export function withinRange(column: PgColumn, range: TimeRange): SQL[] {
  return [range.since ? gte(column, range.since) : undefined, range.until ? lt(column, range.until) : undefined].filter(
    (c): c is SQL => c !== undefined,
  );
}
