import { asc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { events } from '../../db/schema.js';
import type { EventRow } from '../events.js';

/** At most this many events are shown with one object: a code, activation or server changes a handful of times in its life. */
export const OBJECT_EVENTS_MAX = 1000;

/** Which subject column names an object by its id's prefix. */
const SUBJECT_COLUMN = { ic_: events.installCodeId, act_: events.activationId, srv_: events.serverId } as const;

/** The events about one install code, activation or server, oldest first (each column has its index). */
export async function eventsOf(
  db: Database,
  subject: { kind: keyof typeof SUBJECT_COLUMN; id: string },
): Promise<EventRow[]> {
  return db
    .select()
    .from(events)
    .where(eq(SUBJECT_COLUMN[subject.kind], subject.id))
    .orderBy(asc(events.id))
    .limit(OBJECT_EVENTS_MAX);
}
