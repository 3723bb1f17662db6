import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset } from '../../clock.js';
import type { AppDeps } from '../../deps.js';
import {
  attemptsOf,
  listDeliveries,
  queueTestMessage,
  replayDelivery,
  type WebhookAttemptRow,
  type WebhookDeliveryRow,
} from '../../domain/webhooks/deliveries.js';
import { emptyJsonBodyAsObject } from '../../http/body-guards.js';
import { operatorChangeContext } from '../../http/change-context.js';
import type { Router } from '../../http/router.js';
import { OperatorActionRequestSchema } from '../../schemas/admin/operator-reason.js';
import { successEnvelope } from '../../schemas/envelope.js';
import {
  WebhookDeliveryListSchema,
  WebhookDeliveryParamsSchema,
  WebhookDeliveryRecordSchema,
  WebhookEndpointParamsSchema,
} from '../../schemas/admin/webhooks.js';
import { ADMIN_AUTH_SENTENCE, adminErrorResponses, adminOperation } from './admin-route.js';
import { prose } from '../../openapi-prose.js';

const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });

const test = createRoute({
  method: 'post',
  path: '/api/v2/admin/webhooks/{webhook_id}/test',
  operationId: 'testWebhook',
  ...adminOperation('write'),
  summary: 'Send a test message',
  description: prose`Queues a \`webhook.test\` message (\`data.webhook_endpoint_id\`), signed and retried like any other; it
    goes out within seconds (once the endpoint is resumed, if paused). Answers the delivery: follow it in the
    deliveries list. No body. ${ADMIN_AUTH_SENTENCE}`,
  request: { params: WebhookEndpointParamsSchema },
  responses: {
    202: { description: 'Queued.', ...json(successEnvelope(WebhookDeliveryRecordSchema)) },
    ...adminErrorResponses('webhook_endpoint_not_found'),
  },
});

const deliveries = createRoute({
  method: 'get',
  path: '/api/v2/admin/webhooks/{webhook_id}/deliveries',
  operationId: 'listWebhookDeliveries',
  ...adminOperation('read'),
  summary: "List an endpoint's deliveries",
  description: prose`The newest 100 messages of the endpoint, each with every attempt (time, duration, status code or network
    error, a short excerpt of the answer from public targets). No cursor. ${ADMIN_AUTH_SENTENCE}`,
  request: { params: WebhookEndpointParamsSchema },
  responses: {
    200: { description: 'The deliveries, newest first.', ...json(successEnvelope(WebhookDeliveryListSchema)) },
    ...adminErrorResponses('webhook_endpoint_not_found'),
  },
});

const replay = createRoute({
  method: 'post',
  path: '/api/v2/admin/webhook-deliveries/{delivery_id}/replay',
  operationId: 'replayWebhookDelivery',
  ...adminOperation('write', emptyJsonBodyAsObject),
  summary: 'Replay a delivery',
  description: prose`Sends a message again, delivered or not, with the same \`webhook-id\` and body (receivers dedupe on it),
    its retry schedule started afresh; on a paused or disabled endpoint it waits for the resume. Recorded as \`webhook_delivery.replayed\` with
    the operator's name. The body is optional: \`{"reason": "…"}\` says why, kept in the
    event. ${ADMIN_AUTH_SENTENCE}`,
  request: {
    params: WebhookDeliveryParamsSchema,
    body: { required: false, content: { 'application/json': { schema: OperatorActionRequestSchema } } },
  },
  responses: {
    202: { description: 'Queued again.', ...json(successEnvelope(WebhookDeliveryRecordSchema)) },
    ...adminErrorResponses('webhook_delivery_not_found', 'unsupported_media_type', 'payload_too_large'),
  },
});

const at = (d: Date | null) => (d ? toIsoOffset(d) : null);

function deliveryRecord(d: WebhookDeliveryRow, attempts: WebhookAttemptRow[]) {
  return {
    delivery_id: d.id,
    webhook_id: d.endpointId,
    message_id: d.messageId,
    type: d.eventType,
    event_id: d.eventId,
    status: d.status,
    attempt_count: d.attempts,
    next_attempt_at: d.status === 'pending' ? toIsoOffset(d.nextAttemptAt) : null,
    created_at: toIsoOffset(d.createdAt),
    delivered_at: at(d.deliveredAt),
    attempts: attempts.map((a) => ({
      attempted_at: toIsoOffset(a.attemptedAt),
      duration_ms: a.durationMs,
      status_code: a.statusCode,
      error: a.error,
      response_excerpt: a.responseExcerpt,
    })),
  };
}

export function registerAdminWebhookDeliveries(app: Router, deps: AppDeps): void {
  app.openapi(test, async (c) => {
    const { webhook_id } = c.req.valid('param');
    const delivery = await queueTestMessage(c.get('db'), webhook_id, deps.clock.now());
    return c.json({ data: deliveryRecord(delivery, []), meta: { message: 'Test message queued.' } }, 202);
  });

  app.openapi(deliveries, async (c) => {
    const { webhook_id } = c.req.valid('param');
    const items = (await c.get('read')((reader) => listDeliveries(reader, webhook_id))).map(({ delivery, attempts }) =>
      deliveryRecord(delivery, attempts),
    );
    return c.json({ data: { items }, meta: { message: `${items.length} deliveries.` } }, 200);
  });

  app.openapi(replay, async (c) => {
    const { delivery_id } = c.req.valid('param');
    // Without a body (no Content-Type) the validator does not run.
    const context = operatorChangeContext(c, c.req.valid('json')?.reason ?? null);
    const delivery = await replayDelivery(c.get('db'), delivery_id, deps.clock.now(), context);
    return c.json(
      {
        data: deliveryRecord(delivery, await attemptsOf(c.get('db'), delivery.id)),
        meta: { message: 'Delivery queued again.' },
      },
      202,
    );
  });
}
