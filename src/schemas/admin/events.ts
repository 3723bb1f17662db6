import { z } from '@hono/zod-openapi';
import { EVENT_TYPES } from '../../domain/events/event-trail.js';
import { ActivationIdSchema } from '../activation.js';
import { InstallCodeIdSchema, TimestampSchema } from '../install-code.js';
import { ServerIdSchema } from '../server.js';
import { exampleCursor, listQuerySchema, nullableTimestamp, pageOf } from './list.js';

const EventTypeSchema = z
  .enum(EVENT_TYPES, { error: 'must be an event type such as install_code.issued (docs/operators.md lists them)' })
  .openapi('EventType', { description: '`<object>.<verb>` in the past tense.' });

const EXAMPLE_CURSOR = exampleCursor(42, '2026-11-22T10:00:00Z');

export const EventListQuerySchema = listQuerySchema(EXAMPLE_CURSOR).extend({
  type: EventTypeSchema.optional(),
  subject_id: z
    .string()
    .max(20, 'must be an install code (ic_…), activation (act_…) or server (srv_…) id')
    .regex(/^(ic|act|srv)_[0-9a-f]{16}$/, 'must be an install code (ic_…), activation (act_…) or server (srv_…) id')
    .optional()
    .openapi({
      description: 'Only events about this install code, activation or server.',
      example: 'act_3f9a12b45cd67e89',
    }),
});

export const EventRecordSchema = z
  .object({
    event_id: z
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .openapi({ format: 'int64', description: 'Sequential: a larger id was written later.', example: 42 }),
    type: EventTypeSchema,
    occurred_at: TimestampSchema,
    actor: z.enum(['installer', 'agent', 'operator', 'browser', 'service']).openapi({
      description:
        'Who made the change (`service`: the service itself, e.g. a webhook endpoint disabled after failing for 5 days).',
      example: 'installer',
    }),
    install_code_id: InstallCodeIdSchema.nullable().openapi({ description: 'The install code it is about, if any.' }),
    activation_id: ActivationIdSchema.nullable().openapi({ description: 'The activation it is about, if any.' }),
    server_id: ServerIdSchema.nullable().openapi({ description: 'The server it is about, if any.', example: null }),
    request_id: z
      .string()
      .max(128)
      .regex(/^[A-Za-z0-9._:-]{1,128}$/)
      .nullable()
      .openapi({
        description: 'The `X-Request-Id` of the request that made the change.',
        example: '5b0c2f4e-8d1a-4c3b-9e7f-2a6d8c4b1e90',
      }),
    client_key_hash: z
      .string()
      .max(64)
      .regex(/^[0-9a-f]{64}$/)
      .nullable()
      .openapi({
        example: '9f2c4e1a7b3d5f60812a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d',
        description:
          "The client's rate-limit address key (IP, or /64 for IPv6) as HMAC-SHA256 under a key derived from `KEY_ENCRYPTION_KEY` (without one: SHA-256 salted with `event`); `null` when no client request made the change.",
      }),
    data: z
      // Documented as one type list rather than zod's typeless anyOf, which Scalar's document check refuses.
      .record(
        z.string(),
        z
          // `tags` (DESIGN §22) is the one object: the tags of the fleet code, string to string.
          .union([
            z.string().max(256),
            z.number(),
            z.boolean(),
            z.null(),
            z.record(z.string().max(32), z.string().max(64)),
          ])
          .openapi({
            type: ['string', 'number', 'boolean', 'null', 'object'],
            maxLength: 256,
            additionalProperties: { type: 'string', maxLength: 64 },
          }),
      )
      .openapi({
        description: 'Small facts about the change, never a secret (docs/operators.md, "The event trail").',
        example: {
          hostname: 'vpn1.example.net',
          public_ip: '203.0.113.7',
          machine_id: '4c4c4544003957108052b4c04f384833',
        },
      }),
    delivered_at: nullableTimestamp(
      'When it was handed to the webhook deliveries of the endpoints then subscribed (the table is the outbox); `null` until then, which is at most a few seconds while the service runs. While no webhook endpoint exists at all it stays `null`: nothing is handed on, and creating the first endpoint marks every event before it handed, with no delivery.',
    ),
  })
  .openapi('EventRecord');

export const EventPageSchema = pageOf(EventRecordSchema, EXAMPLE_CURSOR).openapi('EventPage');
