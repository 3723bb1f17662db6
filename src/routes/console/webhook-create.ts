import type { Hono } from 'hono';
import type { ConsoleAssets } from '../../console/console-frame.js';
import {
  createdWebhookView,
  createWebhookFormView,
  type WebhookFormValues,
} from '../../console/webhook-create-views.js';
import { createFormUsedView } from '../../console/fleet-code-views.js';
import type { RouteDeps } from '../../deps.js';
import { claimConsoleForm } from '../../domain/operators/console-form-claims.js';
import { randomSecret } from '../../domain/tokens/secret-hash.js';
import { ApiError } from '../../errors.js';
import type { AppEnv } from '../../http/app-env.js';
import { createRequestedWebhook } from '../../http/create-requested-webhook.js';
import { describeIssues } from '../../http/router.js';
import { CreateWebhookRequestSchema } from '../../schemas/admin/webhooks.js';
import { checkedForm } from './actions.js';
import { answerView, ConsoleRefusal, viewerOf } from './console-answer.js';

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** What the form held, shown again after a refusal: never the URL, which may be a credential. */
const valuesOf = (body: Record<string, unknown>): WebhookFormValues => ({
  format: text(body.format),
  events: text(body.events),
  description: text(body.description),
});

/**
 * Adding a webhook endpoint from the console (DESIGN §28), through the admin API's own schema and function
 * (`createRequestedWebhook`): write scope, a form token used once, the URL and secret shown in the answer
 * to the POST only. Registered before the views (`/webhooks/new` is not a view).
 */
export function registerConsoleWebhookCreate(router: Hono<AppEnv>, deps: RouteDeps, assets: ConsoleAssets): void {
  const writer = (c: Parameters<typeof viewerOf>[0]) => {
    const viewer = viewerOf(c)!;
    if (viewer.scope !== 'write')
      throw new ConsoleRefusal(
        403,
        'Action refused',
        `You are signed in as ${viewer.operator} with a read-only token: adding an endpoint needs the write scope.`,
      );
    return viewer;
  };

  router.get('/webhooks/new', (c) => answerView(c, assets, createWebhookFormView(writer(c), randomSecret())));

  router.post('/webhooks', async (c) => {
    const body = await checkedForm(c, deps);
    const viewer = writer(c);
    const createToken = text(body.create_token);
    const parsed = CreateWebhookRequestSchema.safeParse({
      url: text(body.url),
      format: text(body.format) || undefined,
      events: text(body.events)
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean),
      description: text(body.description) || undefined,
    });
    const again = (problem: string, status: 400 | 409) =>
      answerView(
        c,
        assets,
        createWebhookFormView(viewer, createToken || randomSecret(), problem, valuesOf(body)),
        status,
      );
    if (!parsed.success) return again(describeIssues(parsed.error), 400);
    if (createToken === '') return again('This form has no token: open a new form.', 400);
    const session = c.get('consoleSession')!;
    if (
      !(await claimConsoleForm(deps.db, {
        sessionTokenHash: session.tokenHash,
        token: createToken,
        now: deps.clock.now(),
      }))
    )
      return answerView(c, assets, createFormUsedView(), 409);
    try {
      const { endpoint, secret, url } = await createRequestedWebhook(c, deps, parsed.data);
      return answerView(c, assets, createdWebhookView(endpoint, url.href, secret), 201);
    } catch (err) {
      // The form's token is spent: a fresh one, so the corrected form can be sent.
      if (err instanceof ApiError && err.status < 500)
        return answerView(
          c,
          assets,
          createWebhookFormView(viewer, randomSecret(), err.message, valuesOf(body)),
          err.status === 409 ? 409 : 400,
        );
      throw err;
    }
  });
}
