import type { Context, Hono } from 'hono';
import type { RouteDeps } from '../../deps.js';
import { replayDelivery } from '../../domain/webhooks/deliveries.js';
import { operatorChangeContext } from '../../http/change-context.js';
import { formRefusal } from '../../http/console-session.js';
import { releaseActivation } from '../../domain/activations/release.js';
import { revokeInstallCodeAsOperator } from '../../domain/install-codes/revoke-as-operator.js';
import { revokeServer } from '../../domain/servers/registration.js';
import type { AppEnv } from '../../http/app-env.js';
import { OperatorReasonSchema } from '../../schemas/admin/operator-reason.js';
import { ConsoleRefusal, refuseForm, setConsoleHeaders } from './console-answer.js';

/**
 * A console action's form, checked before anything changes: from a page of this console (same origin)
 * and of this very session (its form token), by a write-scope session. Answers the form's fields.
 */
export async function checkedForm(c: Context<AppEnv>, deps: RouteDeps): Promise<Record<string, unknown>> {
  const session = c.get('consoleSession')!;
  const body = await c.req.parseBody();
  refuseForm(formRefusal(c, deps.config.publicBaseUrl, session, body.form_token));
  if (session.scope !== 'write')
    throw new ConsoleRefusal(
      403,
      'Action refused',
      `You are signed in as ${session.operator} with a read-only token: actions need the write scope. Nothing was changed.`,
    );
  return body;
}

/** The reason an operator gave, as the admin API takes it (1 to 200 characters, no control character). */
function reasonOf(body: Record<string, unknown>): string {
  const parsed = OperatorReasonSchema.safeParse(typeof body.reason === 'string' ? body.reason.trim() : undefined);
  if (!parsed.success || parsed.data === undefined)
    throw new ConsoleRefusal(
      400,
      'A reason is needed',
      'Say why in the reason field (1 to 200 characters, on one line): it is kept in the event with your name. Nothing was changed.',
    );
  return parsed.data;
}

function backTo(c: Context<AppEnv>, path: string): Response {
  setConsoleHeaders(c);
  return c.redirect(path, 303);
}

export function registerConsoleActions(router: Hono<AppEnv>, deps: RouteDeps): void {
  router.post('/codes/:id/revoke', async (c) => {
    const body = await checkedForm(c, deps);
    const context = operatorChangeContext(c, reasonOf(body));
    const { code } = await revokeInstallCodeAsOperator(deps.db, c.req.param('id'), deps.clock.now(), context);
    return backTo(c, `/admin/codes/${encodeURIComponent(code.id)}?done=revoked`);
  });

  router.post('/activations/:id/release', async (c) => {
    const body = await checkedForm(c, deps);
    const { activationId } = await releaseActivation(deps.db, {
      activationId: c.req.param('id'),
      now: deps.clock.now(),
      context: operatorChangeContext(c, reasonOf(body)),
    });
    return backTo(c, `/admin/activations/${encodeURIComponent(activationId)}?done=released`);
  });

  router.post('/servers/:id/revoke', async (c) => {
    const body = await checkedForm(c, deps);
    const context = operatorChangeContext(c, reasonOf(body));
    const { server } = await revokeServer(deps.db, c.req.param('id'), deps.clock.now(), context);
    return backTo(c, `/admin/servers/${encodeURIComponent(server.id)}?done=revoked`);
  });

  router.post('/webhook-deliveries/:id/replay', async (c) => {
    const body = await checkedForm(c, deps);
    // The replay form asks no reason; one given is kept, as the admin API keeps it.
    const reason = typeof body.reason === 'string' && body.reason.trim() ? reasonOf(body) : null;
    const delivery = await replayDelivery(
      deps.db,
      c.req.param('id'),
      deps.clock.now(),
      operatorChangeContext(c, reason),
    );
    return backTo(c, `/admin/webhooks?replayed=${encodeURIComponent(delivery.id)}`);
  });
}
