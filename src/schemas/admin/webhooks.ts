import { z } from '@hono/zod-openapi';
import { EVENT_TYPES } from '../../domain/events/event-trail.js';
import { WEBHOOK_FORMATS } from '../../domain/webhooks/endpoints.js';
import { TimestampSchema } from '../install-code.js';
import { nullableTimestamp } from './list.js';

const WebhookEndpointIdSchema = z
  .string()
  .max(19, 'must be a webhook endpoint id (wh_ and 16 hex characters)')
  .regex(/^wh_[0-9a-f]{16}$/, 'must be a webhook endpoint id (wh_ and 16 hex characters)')
  .openapi({ description: "The endpoint's id: `wh_` and 16 hex characters.", example: 'wh_5d2e8f1a3b4c6d70' });

const WebhookDeliveryIdSchema = z
  .string()
  .max(20, 'must be a webhook delivery id (whd_ and 16 hex characters)')
  .regex(/^whd_[0-9a-f]{16}$/, 'must be a webhook delivery id (whd_ and 16 hex characters)')
  .openapi({ description: "The delivery's id: `whd_` and 16 hex characters.", example: 'whd_0a1b2c3d4e5f6a7b' });

export const WebhookEndpointParamsSchema = z.object({
  webhook_id: WebhookEndpointIdSchema.openapi({ param: { name: 'webhook_id', in: 'path' } }),
});
export const WebhookDeliveryParamsSchema = z.object({
  delivery_id: WebhookDeliveryIdSchema.openapi({ param: { name: 'delivery_id', in: 'path' } }),
});

const WebhookFormatSchema = z.enum(WEBHOOK_FORMATS).openapi('WebhookFormat', {
  description:
    'What each message is: `standard` (Standard Webhooks, signed, one message per event), or the incoming-webhook JSON of `slack`, `discord`, `teams` (an Adaptive Card to a Workflows webhook) or `google_chat`: a one-line summary with a link to the console, at most one message a minute (a digest when more happened), unsigned.',
  example: 'standard',
});

const WebhookEventFilterSchema = z
  .enum(['*', ...EVENT_TYPES])
  .openapi('WebhookEventFilter', { description: 'An event type, or `*` for every event.' });

export const CreateWebhookRequestSchema = z
  .object({
    // Longer than the 2048 allowed, so that a long URL is answered `webhook_url_not_allowed` with the reason.
    url: z.string().max(8192).openapi({
      description:
        'Where messages are POSTed: `https` (http only with `WEBHOOK_ALLOW_HTTP=true`), at most 2048 characters, no credentials, no private or metadata address (docs/operators.md, "Webhooks").',
      example: 'https://hooks.example.com/slowdns',
    }),
    format: WebhookFormatSchema.optional().openapi({
      description:
        "`standard` when left out. A chat format posts to that platform's incoming webhook and has no secret.",
    }),
    events: z
      .array(WebhookEventFilterSchema)
      .min(1)
      .max(EVENT_TYPES.length + 1)
      .openapi({
        description: 'The event types to receive; `["*"]` for all.',
        example: ['activation.confirmed', 'server.revoked'],
      }),
    description: z
      .string()
      .max(200)
      .optional()
      .openapi({ description: 'A note for operators.', example: 'Billing: confirmed installs' }),
  })
  .openapi('CreateWebhookRequest');

export const UpdateWebhookRequestSchema = z
  .object({
    paused: z.boolean().openapi({
      description: '`true` pauses (messages wait), `false` resumes (and re-enables a disabled endpoint).',
      example: true,
    }),
  })
  .openapi('UpdateWebhookRequest');

export const WebhookEndpointRecordSchema = z
  .object({
    webhook_id: WebhookEndpointIdSchema,
    url: z.string().max(2048).nullable().openapi({
      description:
        'The whole URL, shown once, in the answer that created the endpoint; `null` everywhere else: URLs often carry secrets (a chat webhook is its own credential) and are kept sealed, so operators see `url_host`.',
      example: null,
    }),
    url_host: z.string().max(300).openapi({
      description: "The URL's host (and port): what every operator may see.",
      example: 'hooks.example.com',
    }),
    description: z.string().max(200).nullable().openapi({ example: 'Billing: confirmed installs' }),
    format: WebhookFormatSchema,
    events: z.array(WebhookEventFilterSchema).max(EVENT_TYPES.length + 1),
    status: z
      .enum(['enabled', 'paused', 'disabled'])
      .openapi({ description: '`disabled`: failed for 5 days; resume it to enable it again.', example: 'enabled' }),
    health: z
      .enum(['healthy', 'failing', 'paused', 'disabled'])
      .openapi({ description: '`failing`: the last attempt failed (since `failing_since`).', example: 'healthy' }),
    pending_deliveries: z
      .number()
      .int()
      .min(0)
      .max(2147483647)
      .openapi({ format: 'int32', description: 'Messages not yet delivered and still to be tried.', example: 0 }),
    created_at: TimestampSchema,
    last_success_at: nullableTimestamp('The last delivered attempt.'),
    last_failure_at: nullableTimestamp('The last failed attempt.'),
    failing_since: nullableTimestamp(
      'The first failure since the last success; 5 days of failures disable the endpoint.',
    ),
    disabled_at: nullableTimestamp('When it was disabled.'),
    previous_secret_expires_at: nullableTimestamp('After a rotation, the previous secret signs too until then.'),
  })
  .openapi('WebhookEndpointRecord');

export const WebhookEndpointListSchema = z
  .object({ items: z.array(WebhookEndpointRecordSchema).max(50) })
  .openapi('WebhookEndpointList');

const WebhookSecretSchema = z
  .string()
  .max(100)
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/)
  .openapi({
    description: 'The signing secret (Standard Webhooks: `whsec_` and base64): shown once, here.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  });

// A plain object rather than `.extend()`, which is documented as an allOf that Scalar's document check refuses.
export const CreatedWebhookSchema = z
  .object({
    ...WebhookEndpointRecordSchema.shape,
    secret: WebhookSecretSchema.nullable().openapi({
      description:
        'The signing secret (Standard Webhooks: `whsec_` and base64), shown once, here; `null` for a chat format.',
    }),
  })
  .openapi('CreatedWebhook', {
    example: {
      webhook_id: 'wh_5d2e8f1a3b4c6d70',
      url: 'https://hooks.example.com/slowdns',
      url_host: 'hooks.example.com',
      description: 'Billing: confirmed installs',
      format: 'standard',
      events: ['activation.confirmed', 'server.revoked'],
      status: 'enabled',
      health: 'healthy',
      pending_deliveries: 0,
      created_at: '2026-11-22T10:00:00+00:00',
      last_success_at: null,
      last_failure_at: null,
      failing_since: null,
      disabled_at: null,
      previous_secret_expires_at: null,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    },
  });

export const RotatedWebhookSecretSchema = z
  .object({
    webhook_id: WebhookEndpointIdSchema,
    secret: WebhookSecretSchema,
    previous_secret_expires_at: TimestampSchema,
  })
  .openapi('RotatedWebhookSecret');

export const RemovedWebhookSchema = z
  .object({ webhook_id: WebhookEndpointIdSchema, removed: z.literal(true) })
  .openapi('RemovedWebhook');

const WebhookAttemptSchema = z
  .object({
    attempted_at: TimestampSchema,
    duration_ms: z.number().int().min(0).max(2147483647).openapi({ format: 'int32', example: 84 }),
    status_code: z.number().int().min(0).max(999).nullable().openapi({
      format: 'int32',
      description: "The receiver's HTTP status; `null` when no answer came.",
      example: 200,
    }),
    error: z.string().max(300).nullable().openapi({
      description:
        'Why no answer came: `timeout` (10 s), `network: <code>`, `dns: <code>`, `refused: <reason>` (an address the safety rules refuse).',
      example: null,
    }),
    response_excerpt: z.string().max(256).nullable().openapi({
      description: 'The first 256 characters of the answer; never kept from a private target.',
      example: 'ok',
    }),
  })
  .openapi('WebhookAttempt');

export const WebhookDeliveryRecordSchema = z
  .object({
    delivery_id: WebhookDeliveryIdSchema,
    webhook_id: WebhookEndpointIdSchema,
    message_id: z.string().max(40).openapi({
      description:
        'The `webhook-id` header: the same on every attempt and replay (`evt_<event id>`, or `msg_…` for a test message).',
      example: 'evt_42',
    }),
    type: z
      .string()
      .max(64)
      .openapi({ description: 'The event type, or `webhook.test`.', example: 'activation.confirmed' }),
    event_id: z
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .nullable()
      .openapi({ format: 'int64', description: 'The event it carries; `null` for a test message.', example: 42 }),
    status: z.enum(['pending', 'delivered', 'failed']).openapi({
      description: '`failed`: every attempt of the retry schedule failed; replay it to try again.',
      example: 'delivered',
    }),
    attempt_count: z.number().int().min(0).max(2147483647).openapi({
      format: 'int32',
      description: 'Attempts in the current schedule (a replay starts it again).',
      example: 1,
    }),
    next_attempt_at: nullableTimestamp('When it is tried next, while pending.'),
    created_at: TimestampSchema,
    delivered_at: nullableTimestamp('When a 2xx answered it.'),
    attempts: z.array(WebhookAttemptSchema).max(1000).openapi({ description: 'Every attempt, oldest first.' }),
  })
  .openapi('WebhookDeliveryRecord');

export const WebhookDeliveryListSchema = z
  .object({ items: z.array(WebhookDeliveryRecordSchema).max(100) })
  .openapi('WebhookDeliveryList');
