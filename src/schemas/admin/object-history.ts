import { z } from '@hono/zod-openapi';
import { OBJECT_EVENTS_MAX } from '../../domain/admin-lists/object-events.js';
import { EventRecordSchema } from './events.js';

/**
 * One object as its list shows it, plus its events: a schema of its own (the record's fields and
 * `events`), so that the document shows it whole.
 */
export function withEvents<S extends z.ZodRawShape>(record: z.ZodObject<S>, name: string, description: string) {
  return z
    .object({
      ...record.shape,
      events: z
        .array(EventRecordSchema)
        .max(OBJECT_EVENTS_MAX)
        .openapi({
          description: `Its events, oldest first (the first ${OBJECT_EVENTS_MAX}); events older than \`EVENT_RETENTION_DAYS\` are pruned.`,
        }),
    })
    .openapi(name, { description });
}
