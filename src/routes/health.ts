import { createRoute, z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { errorResponses, successEnvelope } from '../schemas/envelope.js';
import type { Router } from '../http/router.js';

const HealthSchema = z.object({ status: z.literal('ok') }).openapi('Health');

const healthz = createRoute({
  method: 'get',
  path: '/api/v2/healthz',
  operationId: 'getHealth',
  tags: ['health'],
  summary: 'Health check',
  // Public: no credentials of any kind (an explicit empty list, so the reference says so).
  security: [],
  description: 'Answers 200 after a real round trip to the database, and 503 `service_unavailable` when the database cannot be reached. Not rate-limited.',
  responses: {
    200: {
      description: 'The service and its database are up.',
      content: {
        'application/json': {
          schema: successEnvelope(HealthSchema),
          example: { data: { status: 'ok' }, meta: { message: 'The service is healthy.' } },
        },
      },
    },
    ...errorResponses(),
  },
});

export function registerHealth(app: Router, db: Database): void {
  app.openapi(healthz, async (c) => {
    await db.execute(sql`select 1`);
    return c.json({ data: { status: 'ok' as const }, meta: { message: 'The service is healthy.' } }, 200);
  });
}
