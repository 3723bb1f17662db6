import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import { createWebhookEndpoint } from '../domain/webhooks/endpoints.js';
import { checkWebhookUrl, WebhookUrlRefused } from '../domain/webhooks/url-safety.js';
import { ApiError } from '../errors.js';
import type { CreateWebhookRequestSchema } from '../schemas/admin/webhooks.js';
import type { AppEnv } from './app-env.js';
import { operatorChangeContext } from './change-context.js';

/**
 * Adds the webhook endpoint an operator asked for (DESIGN §15, §28), through the admin API or the console's
 * form: one reading of the request (its URL checked, `*` standing alone, `standard` when no format is given).
 * Answers the endpoint, its secret (null for a chat format) and the URL, which is shown this once.
 */
export async function createRequestedWebhook(
  c: Context<AppEnv>,
  deps: Pick<AppDeps, 'db' | 'config' | 'clock'>,
  request: z.output<typeof CreateWebhookRequestSchema>,
) {
  let url: URL;
  try {
    url = checkWebhookUrl(request.url, deps.config.webhookSafety);
  } catch (err) {
    if (err instanceof WebhookUrlRefused)
      throw new ApiError('webhook_url_not_allowed', `This URL cannot be a webhook target: ${err.message}.`);
    throw err;
  }
  const events = [...new Set(request.events)];
  const { endpoint, secret } = await createWebhookEndpoint(deps.db, {
    input: {
      url,
      events: events.includes('*') ? ['*'] : events,
      description: request.description,
      format: request.format ?? 'standard',
    },
    sealing: { kek: deps.config.keyEncryptionKey, required: deps.config.requireKeyEncryption },
    now: deps.clock.now(),
    context: operatorChangeContext(c),
  });
  return { endpoint, secret, url };
}
