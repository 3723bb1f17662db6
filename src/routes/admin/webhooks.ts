import { answerShowsSecret } from '../../http/idempotency-key.js';
import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset } from '../../clock.js';
import type { AppDeps } from '../../deps.js';
import type { EventType } from '../../domain/events/event-trail.js';
import { operatorChangeContext } from '../../http/change-context.js';
import { createRequestedWebhook } from '../../http/create-requested-webhook.js';
import type { Router } from '../../http/router.js';
import {
  getWebhookEndpoint,
  listWebhookEndpoints,
  removeWebhookEndpoint,
  rotateWebhookSecret,
  setWebhookEndpointPaused,
  webhookEndpointHealth,
  type WebhookEndpointView,
} from '../../domain/webhooks/endpoints.js';
import { successEnvelope } from '../../schemas/envelope.js';
import {
  CreatedWebhookSchema,
  CreateWebhookRequestSchema,
  RemovedWebhookSchema,
  RotatedWebhookSecretSchema,
  UpdateWebhookRequestSchema,
  WebhookEndpointListSchema,
  WebhookEndpointParamsSchema,
  WebhookEndpointRecordSchema,
} from '../../schemas/admin/webhooks.js';
import { ADMIN_AUTH_SENTENCE, adminErrorResponses, adminOperation } from './admin-route.js';
import { prose } from '../../openapi-prose.js';
import { noStore, noStoreHeader } from '../../http/no-store.js';

const json = <T>(schema: T) => ({ content: { 'application/json': { schema } } });

const create = createRoute({
  method: 'post',
  path: '/api/v2/admin/webhooks',
  operationId: 'createWebhook',
  ...adminOperation('write', answerShowsSecret, noStore),
  summary: 'Add a webhook endpoint',
  description: prose`Adds an endpoint that receives every event of the given types committed from now on (creating it sends
    nothing): signed per Standard Webhooks (\`format: standard\`, the default), or as a chat platform's incoming-webhook
    message (\`slack\`, \`discord\`, \`teams\`, \`google_chat\`: a one-line summary with a link to the console, at most one
    message a minute, a digest when more happened, no secret). The answer holds the signing secret and the whole URL,
    shown this once; the URL is kept sealed like the secret, and only its host is shown afterwards. The URL is
    refused with 400 \`webhook_url_not_allowed\` when it is not https (unless \`WEBHOOK_ALLOW_HTTP=true\`),
    longer than 2048 characters, holds credentials, or names a loopback, private, link-local, CGNAT,
    unique-local or unspecified address (unless \`WEBHOOK_ALLOW_PRIVATE=true\`) or a cloud metadata address
    (always); a name is resolved and checked again at every delivery. The secret and URL are kept sealed under
    \`KEY_ENCRYPTION_KEY\`; where \`REQUIRE_KEY_ENCRYPTION\` is in force (PostgreSQL) and no KEK is set (signing
    keys from \`SIGNING_KEYS\`), no endpoint is created: 409 \`key_encryption_required\`. Recorded as
    \`webhook_endpoint.created\`. ${ADMIN_AUTH_SENTENCE}`,
  request: { body: { required: true, ...json(CreateWebhookRequestSchema) } },
  responses: {
    201: {
      description: 'The endpoint, with its secret (shown once).',
      headers: noStoreHeader('the secret'),
      ...json(successEnvelope(CreatedWebhookSchema)),
    },
    ...adminErrorResponses(
      'webhook_url_not_allowed',
      'webhook_endpoint_limit_reached',
      'key_encryption_required',
      'unsupported_media_type',
    ),
  },
});

const list = createRoute({
  method: 'get',
  path: '/api/v2/admin/webhooks',
  operationId: 'listWebhooks',
  ...adminOperation('read'),
  summary: 'List webhook endpoints',
  description: prose`Every endpoint (at most 50), newest first, with its health (\`healthy\`, \`failing\`, \`paused\`,
    \`disabled\`), pending deliveries and last success and failure; never its secret. ${ADMIN_AUTH_SENTENCE}`,
  responses: {
    200: { description: 'The endpoints.', ...json(successEnvelope(WebhookEndpointListSchema)) },
    ...adminErrorResponses(),
  },
});

const show = createRoute({
  method: 'get',
  path: '/api/v2/admin/webhooks/{webhook_id}',
  operationId: 'getWebhook',
  ...adminOperation('read'),
  summary: 'Show a webhook endpoint',
  description: `One endpoint as the list shows it. ${ADMIN_AUTH_SENTENCE}`,
  request: { params: WebhookEndpointParamsSchema },
  responses: {
    200: { description: 'The endpoint.', ...json(successEnvelope(WebhookEndpointRecordSchema)) },
    ...adminErrorResponses('webhook_endpoint_not_found'),
  },
});

const update = createRoute({
  method: 'patch',
  path: '/api/v2/admin/webhooks/{webhook_id}',
  operationId: 'updateWebhook',
  ...adminOperation('write'),
  summary: 'Pause or resume a webhook endpoint',
  description: prose`\`{"paused": true}\` pauses: messages are still made for it and wait. \`{"paused": false}\` resumes: the
    waiting messages go out (several at once: receivers should not rely on their order, but on each body's
    \`timestamp\`); a disabled endpoint is enabled again. Recorded as \`webhook_endpoint.paused\` or
    \`webhook_endpoint.resumed\`; idempotent. ${ADMIN_AUTH_SENTENCE}`,
  request: { params: WebhookEndpointParamsSchema, body: { required: true, ...json(UpdateWebhookRequestSchema) } },
  responses: {
    200: { description: 'The endpoint as it now is.', ...json(successEnvelope(WebhookEndpointRecordSchema)) },
    ...adminErrorResponses('webhook_endpoint_not_found', 'unsupported_media_type'),
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/api/v2/admin/webhooks/{webhook_id}',
  operationId: 'removeWebhook',
  ...adminOperation('write'),
  summary: 'Remove a webhook endpoint',
  description: `Removes the endpoint with its deliveries and their attempts. Recorded as \`webhook_endpoint.removed\`. ${ADMIN_AUTH_SENTENCE}`,
  request: { params: WebhookEndpointParamsSchema },
  responses: {
    200: { description: 'Removed.', ...json(successEnvelope(RemovedWebhookSchema)) },
    ...adminErrorResponses('webhook_endpoint_not_found'),
  },
});

const rotate = createRoute({
  method: 'post',
  path: '/api/v2/admin/webhooks/{webhook_id}/rotate-secret',
  operationId: 'rotateWebhookSecret',
  ...adminOperation('write', answerShowsSecret, noStore),
  summary: "Rotate a webhook endpoint's secret",
  description: prose`A new secret, shown this once. For 24 hours both the new and the previous secret sign every message (two
    signatures in \`webhook-signature\`), so the receiver can switch without losing one. Like creation, 409 \`key_encryption_required\`
    where secrets must be sealed and no KEK is set. A chat endpoint has no secret: 409 \`webhook_endpoint_unsigned\`. Recorded as
    \`webhook_endpoint.secret_rotated\`. No body. ${ADMIN_AUTH_SENTENCE}`,
  request: { params: WebhookEndpointParamsSchema },
  responses: {
    200: {
      description: 'The new secret.',
      headers: noStoreHeader('the secret'),
      ...json(successEnvelope(RotatedWebhookSecretSchema)),
    },
    ...adminErrorResponses('webhook_endpoint_not_found', 'key_encryption_required', 'webhook_endpoint_unsigned'),
  },
});

type WebhookEventFilterName = '*' | EventType;

const at = (d: Date | null) => (d ? toIsoOffset(d) : null);

/** An endpoint as the API answers it: its whole URL only when it was just created (`shownOnce`), as its secret. */
function webhookRecord({ endpoint: e, pendingDeliveries }: WebhookEndpointView, shownOnce?: URL) {
  return {
    webhook_id: e.id,
    url: shownOnce?.href ?? null,
    url_host: e.urlHost,
    description: e.description,
    format: e.format,
    events: e.eventTypes as WebhookEventFilterName[],
    status: e.status,
    health: webhookEndpointHealth(e),
    pending_deliveries: pendingDeliveries,
    created_at: toIsoOffset(e.createdAt),
    last_success_at: at(e.lastSuccessAt),
    last_failure_at: at(e.lastFailureAt),
    failing_since: at(e.failingSince),
    disabled_at: at(e.disabledAt),
    previous_secret_expires_at: at(e.previousSecretExpiresAt),
  };
}

export function registerAdminWebhooks(app: Router, deps: AppDeps): void {
  const sealing = { kek: deps.config.keyEncryptionKey, required: deps.config.requireKeyEncryption };

  app.openapi(create, async (c) => {
    const { endpoint, secret, url } = await createRequestedWebhook(
      c,
      { ...deps, db: c.get('db') },
      c.req.valid('json'),
    );
    return c.json(
      {
        data: { ...webhookRecord({ endpoint, pendingDeliveries: 0 }, url), secret },
        meta: {
          message:
            secret === null
              ? 'Webhook endpoint added. Its URL is kept sealed and not shown again.'
              : 'Webhook endpoint added. Keep the secret: neither it nor the URL is shown again.',
        },
      },
      201,
    );
  });

  app.openapi(list, async (c) => {
    const items = (await c.get('read')(listWebhookEndpoints)).map((view) => webhookRecord(view));
    return c.json({ data: { items }, meta: { message: `${items.length} webhook endpoints.` } }, 200);
  });

  app.openapi(show, async (c) => {
    const { webhook_id } = c.req.valid('param');
    return c.json(
      {
        data: webhookRecord(await c.get('read')((reader) => getWebhookEndpoint(reader, webhook_id))),
        meta: { message: 'Webhook endpoint.' },
      },
      200,
    );
  });

  app.openapi(update, async (c) => {
    const { webhook_id } = c.req.valid('param');
    const { paused } = c.req.valid('json');
    const context = operatorChangeContext(c);
    await setWebhookEndpointPaused(deps.db, { id: webhook_id, paused, now: deps.clock.now(), context });
    const after = await getWebhookEndpoint(deps.db, webhook_id);
    return c.json(
      {
        data: webhookRecord(after),
        meta: { message: paused ? 'Webhook endpoint paused.' : 'Webhook endpoint enabled.' },
      },
      200,
    );
  });

  app.openapi(remove, async (c) => {
    const { webhook_id } = c.req.valid('param');
    const context = operatorChangeContext(c);
    await removeWebhookEndpoint(deps.db, webhook_id, deps.clock.now(), context);
    return c.json(
      { data: { webhook_id, removed: true as const }, meta: { message: 'Webhook endpoint removed.' } },
      200,
    );
  });

  app.openapi(rotate, async (c) => {
    const { webhook_id } = c.req.valid('param');
    const context = operatorChangeContext(c);
    const { endpoint, secret } = await rotateWebhookSecret(c.get('db'), {
      id: webhook_id,
      sealing,
      now: deps.clock.now(),
      context,
    });
    return c.json(
      {
        data: { webhook_id, secret, previous_secret_expires_at: toIsoOffset(endpoint.previousSecretExpiresAt!) },
        meta: { message: 'Secret rotated. Keep it: it is not shown again.' },
      },
      200,
    );
  });
}
