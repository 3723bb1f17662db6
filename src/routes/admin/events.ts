import { createRoute } from '@hono/zod-openapi';
import type { AppDeps } from '../../deps.js';
import { listEvents } from '../../domain/admin-lists/event-list.js';
import type { Router } from '../../http/router.js';
import { EventListQuerySchema, EventPageSchema, EventRecordSchema } from '../../schemas/admin/events.js';
import { timeRange } from '../../schemas/admin/list.js';
import { toEventRecord } from './event-record.js';
import {
  ADMIN_AUTH_SENTENCE,
  adminErrorResponses,
  adminOperation,
  EXPORT_SENTENCE,
  listAnswer,
  listResponse,
} from './admin-route.js';
import { prose } from '../../openapi-prose.js';

const list = createRoute({
  method: 'get',
  path: '/api/v2/admin/events',
  operationId: 'listEvents',
  ...adminOperation('read'),
  summary: 'List events',
  description: prose`The event trail, newest first (by the time of the change, then by id): one event per state change, written in the transaction of the change
    (docs/operators.md, "The event trail"). Filters: \`type\`, \`subject_id\` (an install code, activation or
    server id), \`since\`/\`until\` on the time of the change. Events are kept \`EVENT_RETENTION_DAYS\` (90 by
    default). ${EXPORT_SENTENCE} ${ADMIN_AUTH_SENTENCE}`,
  request: { query: EventListQuerySchema },
  responses: {
    ...listResponse('One page of events, or every matching one as NDJSON.', EventPageSchema, EventRecordSchema),
    ...adminErrorResponses(),
  },
});

export function registerAdminEvents(app: Router, deps: AppDeps): void {
  app.openapi(list, async (c) => {
    const query = c.req.valid('query');
    const filter = { ...query, subjectId: query.subject_id, ...timeRange(query) };
    return listAnswer(
      c,
      query,
      (reader, cursor, limit) =>
        listEvents(reader, {
          ...filter,
          cursor,
          limit,
          now: deps.clock.now(),
          retentionDays: deps.config.eventRetentionDays,
        }),
      toEventRecord,
      'events',
    );
  });
}
