import type { Context, Hono } from 'hono';
import { CONSOLE_TOKEN_MAX_DAYS, operatorsView } from '../../console/operators-view.js';
import type { ConsoleAssets } from '../../console/console-frame.js';
import type { RouteDeps } from '../../deps.js';
import { endConsoleSessionByHandle, listConsoleSessions } from '../../domain/operators/console-session-list.js';
import {
  createOperatorToken,
  listOperatorTokens,
  revokeOperatorToken,
} from '../../domain/operators/operator-tokens.js';
import type { AppEnv } from '../../http/app-env.js';
import { operatorChangeContext } from '../../http/change-context.js';
import { formRefusal } from '../../http/console-session.js';
import { OperatorNameSchema } from '../../schemas/admin/operator-tokens.js';
import { answerView, ConsoleRefusal, refuseForm, setConsoleHeaders, viewerOf } from './console-answer.js';

const DAY_MS = 24 * 3600 * 1000;

function requireRoot(c: Context<AppEnv>): void {
  const session = c.get('consoleSession')!;
  if (!session.root)
    throw new ConsoleRefusal(
      403,
      'Refused',
      `You are signed in as ${session.operator} with the ${session.scope} scope: operator tokens and sessions are managed by a root operator. Nothing was changed.`,
    );
}

/** A root operator's form: from a page of this session (same origin, its form token). Answers its fields. */
async function rootForm(c: Context<AppEnv>, deps: RouteDeps): Promise<Record<string, unknown>> {
  const body = await c.req.parseBody();
  refuseForm(formRefusal(c, deps.config.publicBaseUrl, c.get('consoleSession')!, body.form_token));
  requireRoot(c);
  return body;
}

/** The token asked for, as the console allows it: a valid name, `read` or `write` only, 1 to 90 days. */
function tokenRequest(body: Record<string, unknown>, now: Date) {
  const name = OperatorNameSchema.safeParse(typeof body.name === 'string' ? body.name.trim() : undefined);
  if (!name.success)
    throw new ConsoleRefusal(
      400,
      'Not valid',
      `The name ${name.error.issues[0]?.message ?? 'is not valid'}. Nothing was made.`,
    );
  if (body.scope !== 'read' && body.scope !== 'write')
    throw new ConsoleRefusal(
      400,
      'Not valid',
      'A token made in the console has the read or the write scope, never more. Nothing was made.',
    );
  const days = Number(body.expires_in_days);
  if (!Number.isInteger(days) || days < 1 || days > CONSOLE_TOKEN_MAX_DAYS)
    throw new ConsoleRefusal(
      400,
      'Not valid',
      `A token made in the console expires within 1 to ${CONSOLE_TOKEN_MAX_DAYS} days. Nothing was made.`,
    );
  return {
    name: name.data,
    scope: body.scope,
    expiresAt: new Date(Math.floor((now.getTime() + days * DAY_MS) / 1000) * 1000),
  } as const;
}

/** `/admin/operators` (DESIGN §26): a root operator's operator tokens and console sessions. */
export function registerConsoleOperators(router: Hono<AppEnv>, deps: RouteDeps, assets: ConsoleAssets): void {
  const page = async (c: Context<AppEnv>, minted?: { name: string; token: string }) => {
    const now = deps.clock.now();
    const [tokens, sessions] = [await listOperatorTokens(deps.db), await listConsoleSessions(deps.db, now)];
    return answerView(c, assets, operatorsView({ tokens, sessions, now, ...(minted ? { minted } : {}) }, viewerOf(c)!));
  };

  router.get('/operators', async (c) => {
    requireRoot(c);
    return page(c);
  });

  router.post('/operators/tokens', async (c) => {
    const body = await rootForm(c, deps);
    const now = deps.clock.now();
    const { row, token } = await createOperatorToken(
      deps.db,
      tokenRequest(body, now),
      now,
      operatorChangeContext(c, null),
    );
    return page(c, { name: row.name, token });
  });

  router.post('/operators/tokens/:id/revoke', async (c) => {
    await rootForm(c, deps);
    await revokeOperatorToken(deps.db, c.req.param('id'), deps.clock.now(), operatorChangeContext(c, null));
    setConsoleHeaders(c);
    return c.redirect('/admin/operators', 303);
  });

  router.post('/operators/sessions/:handle/end', async (c) => {
    await rootForm(c, deps);
    const ended = await endConsoleSessionByHandle(deps.db, c.req.param('handle'), deps.clock.now());
    if (!ended)
      throw new ConsoleRefusal(404, 'Not found', 'No live console session has this handle: it has ended already.');
    setConsoleHeaders(c);
    return c.redirect('/admin/operators', 303);
  });
}
