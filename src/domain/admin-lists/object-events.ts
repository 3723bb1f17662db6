import { and, asc, eq, gte } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { events } from '../../db/schema.js';
import type { EventRow } from '../events/event-trail.js';

/** At most this many events are shown with one object: a code, activation or server changes a handful of times in its life. */
export const OBJECT_EVENTS_MAX = 1000;

/** Which subject column names an object by its id's prefix. */
const SUBJECT_COLUMN = { ic_: events.installCodeId, act_: events.activationId, srv_: events.serverId } as const;

/** A day before the object was made: its first event is written with it, and no partition older than this is read. */
const BEFORE_CREATION_MS = 86_400_000;

/**
 * The events about one install code, activation or server, oldest first (each column has its index),
 * from the object's creation on (`createdAt`: a code's issued_at, an activation's created_at, a server's
 * registered_at), so the partitions of the days before it are never read.
 */
export async function eventsOf(
  db: Database,
  subject: { kind: keyof typeof SUBJECT_COLUMN; id: string; createdAt: Date },
): Promise<EventRow[]> {
  return db
    .select()
    .from(events)
    .where(
      and(
        eq(SUBJECT_COLUMN[subject.kind], subject.id),
        gte(events.occurredAt, new Date(subject.createdAt.getTime() - BEFORE_CREATION_MS)),
      ),
    )
    .orderBy(asc(events.id))
    .limit(OBJECT_EVENTS_MAX);
}
