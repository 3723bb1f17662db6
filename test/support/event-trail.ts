import { asc, gt } from 'drizzle-orm';
import { events } from '../../src/db/schema.js';
import type { EventRow } from '../../src/domain/events/event-trail.js';
import type { TestApp } from './test-app.js';

/** Reads the event trail in steps: each `take()` answers the events written since the previous one, oldest first. */
export function eventTrail(t: TestApp) {
  let seen = 0;
  return {
    async take(): Promise<EventRow[]> {
      const rows = await t.database.db.select().from(events).where(gt(events.id, seen)).orderBy(asc(events.id));
      if (rows.length > 0) seen = rows[rows.length - 1]!.id;
      return rows;
    },
    /** The types of `take()`. */
    async types(): Promise<string[]> {
      return (await this.take()).map((e) => e.type);
    },
  };
}
