import { createRoute, z } from '@hono/zod-openapi';
import type { DatabaseAvailability } from '../db/availability.js';
import type { Database } from '../db/database.js';
import { namedStatement } from '../db/named-statement.js';
import { runStatement } from '../db/statement.js';
import { serviceUnavailable } from '../http/database-gate.js';
import { errorResponses, successEnvelope } from '../schemas/envelope.js';
import type { Router } from '../http/router.js';

const HealthSchema = z.object({ status: z.literal('ok') }).openapi('Health');
const LivenessSchema = z.object({ status: z.literal('alive') }).openapi('Liveness');
const ReadinessSchema = z.object({ status: z.literal('ready') }).openapi('Readiness');

/** The 200 of a probe (its status word and message) and the error responses every route documents. */
function probeResponses<T extends z.ZodTypeAny>(description: string, schema: T, status: string, message: string) {
  return {
    200: {
      description,
      content: {
        'application/json': { schema: successEnvelope(schema), example: { data: { status }, meta: { message } } },
      },
    },
    ...errorResponses(),
  };
}

const healthz = createRoute({
  method: 'get',
  path: '/api/v2/healthz',
  operationId: 'getHealth',
  tags: ['health'],
  summary: 'Health check',
  // Public: no credentials of any kind (an explicit empty list, so the reference says so).
  security: [],
  description:
    'Answers 200 after a real round trip to the database that shows it accepts writes, and 503 `service_unavailable` (with `Retry-After`, within 2 s) when the database cannot be reached, does not answer, or does not accept writes (a standby, or a node an HA manager is still promoting). Not rate-limited.',
  responses: probeResponses('The service and its database are up.', HealthSchema, 'ok', 'The service is healthy.'),
});

const livez = createRoute({
  method: 'get',
  path: '/api/v2/livez',
  operationId: 'getLiveness',
  tags: ['health'],
  summary: 'Liveness probe',
  security: [],
  description:
    "Answers 200 whenever the process can answer at all, without touching the database: also while the service starts, while the database is away and while it drains for shutdown. For an orchestrator's liveness probe (restart when it fails). Not rate-limited.",
  responses: probeResponses('The process answers.', LivenessSchema, 'alive', 'The process is running.'),
});

const readyz = createRoute({
  method: 'get',
  path: '/api/v2/readyz',
  operationId: 'getReadiness',
  tags: ['health'],
  summary: 'Readiness probe',
  security: [],
  description:
    "Answers 200 when the service takes requests: its database answered a round trip just now, accepts writes, and its migrations are applied. Answers 503 `service_unavailable` with `Retry-After` (within 2 s) while the service is starting (database not reached or migrations not done), while the database is unreachable, and while it drains for shutdown; the message says which. For an orchestrator's readiness probe (send no traffic while it fails). Not rate-limited.",
  responses: probeResponses('The service takes requests.', ReadinessSchema, 'ready', 'The service is ready.'),
});

export interface HealthDeps {
  db: Database;
  availability: DatabaseAvailability;
  /** True once shutdown has begun: readiness fails so that traffic moves elsewhere during the drain. */
  isDraining: () => boolean;
}

/** Liveness alone: the one route that also answers while the service starts (src/app-while-starting.ts). */
export function registerLiveness(app: Router): void {
  app.openapi(livez, (c) =>
    c.json({ data: { status: 'alive' as const }, meta: { message: 'The process is running.' } }, 200),
  );
}

/** The database round trip of the health check: one row when the session may write (not a standby, not read-only, as the probe asks: writable-host.ts). */
const WRITABLE_ROUND_TRIP = namedStatement(
  `select 1 where not pg_is_in_recovery() and current_setting('transaction_read_only') = 'off'`,
);

export function registerHealth(app: Router, deps: HealthDeps): void {
  app.openapi(healthz, async (c) => {
    // A database that answers but does not accept writes (a standby, a node being promoted) is not healthy.
    const writable = await runStatement(deps.db, WRITABLE_ROUND_TRIP, {});
    if (writable.length === 0) {
      deps.availability.reportFailure();
      throw serviceUnavailable();
    }
    return c.json({ data: { status: 'ok' as const }, meta: { message: 'The service is healthy.' } }, 200);
  });
  registerLiveness(app);
  app.openapi(readyz, async (c) => {
    if (deps.isDraining()) throw serviceUnavailable('The service is shutting down; send requests to another instance.');
    if (!(await deps.availability.check())) throw serviceUnavailable();
    return c.json({ data: { status: 'ready' as const }, meta: { message: 'The service is ready.' } }, 200);
  });
}
