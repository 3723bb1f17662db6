import type { Context, Hono } from 'hono';
import {
  createCodeFormView,
  createdCodeView,
  createFormUsedView,
  type CreateFormValues,
} from '../../console/fleet-code-views.js';
import type { ConsoleAssets } from '../../console/console-frame.js';
import type { RouteDeps } from '../../deps.js';
import { decidePrecheck } from '../../domain/install-codes/decide-precheck.js';
import { issueRequestedCode } from '../../http/issue-requested-code.js';
import { claimConsoleForm } from '../../domain/operators/console-form-claims.js';
import { randomSecret } from '../../domain/tokens/secret-hash.js';
import type { AppEnv } from '../../http/app-env.js';
import { operatorChangeContext } from '../../http/change-context.js';
import { describeIssues } from '../../http/router.js';
import { CreateInstallCodeRequestSchema } from '../../schemas/admin/fleet-codes.js';
import { OperatorReasonSchema } from '../../schemas/admin/operator-reason.js';
import { checkedForm } from './actions.js';
import { answerView, ConsoleRefusal, setConsoleHeaders, viewerOf } from './console-answer.js';

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
const lines = (value: unknown): string[] =>
  text(value)
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

/** The form's fields as the admin API's request, so one schema judges both (`key=value` lines become `tags`). */
function requestOf(body: Record<string, unknown>): Record<string, unknown> {
  const tags = lines(body.tags).map((line) => {
    const equals = line.indexOf('=');
    return equals < 1 ? [line, ''] : [line.slice(0, equals).trim(), line.slice(equals + 1).trim()];
  });
  const optional = (value: string) => (value === '' ? undefined : value);
  return {
    uses: text(body.uses) === '' ? undefined : Number(text(body.uses)),
    ttl_seconds: text(body.ttl_seconds) === '' ? undefined : Number(text(body.ttl_seconds)),
    description: optional(text(body.description)),
    tags: tags.length ? Object.fromEntries(tags) : undefined,
    allowed_cidrs: lines(body.allowed_cidrs).length ? lines(body.allowed_cidrs) : undefined,
    hostname_pattern: optional(text(body.hostname_pattern)),
    require_approval: body.require_approval === 'on',
    reason: optional(text(body.reason)),
  };
}

function valuesOf(body: Record<string, unknown>): CreateFormValues {
  const fields = ['uses', 'ttl_seconds', 'description', 'tags', 'allowed_cidrs', 'hostname_pattern', 'reason'] as const;
  return {
    ...Object.fromEntries(fields.map((f) => [f, typeof body[f] === 'string' ? body[f] : undefined])),
    require_approval: body.require_approval === 'on',
  };
}

function writeScope(c: Context<AppEnv>): void {
  const viewer = viewerOf(c)!;
  if (viewer.scope !== 'write')
    throw new ConsoleRefusal(
      403,
      'Action refused',
      `You are signed in as ${viewer.operator} with a read-only token: creating a code needs the write scope.`,
    );
}

/**
 * The console's side of codes for fleets (DESIGN §22), through the admin API's own schema and domain
 * functions: the create form (write scope; each form carries a single-use token, so a form sent twice
 * makes one code at most, and the code is shown once, in the answer to the POST, never in a URL), and an
 * operator's decision on a machine waiting for approval. Registered before the views (`/codes/new`
 * before `/codes/:id`).
 */
export function registerConsoleFleetCodes(router: Hono<AppEnv>, deps: RouteDeps, assets: ConsoleAssets): void {
  router.get('/codes/new', (c) => {
    writeScope(c);
    return answerView(c, assets, createCodeFormView(viewerOf(c)!, randomSecret()));
  });

  router.post('/codes', async (c) => {
    const body = await checkedForm(c, deps);
    const createToken = text(body.create_token);
    const parsed = CreateInstallCodeRequestSchema.safeParse(requestOf(body));
    if (!parsed.success || createToken === '') {
      const problem = parsed.success ? 'This form has no token: open a new form.' : describeIssues(parsed.error);
      return answerView(
        c,
        assets,
        createCodeFormView(viewerOf(c)!, createToken || randomSecret(), problem, valuesOf(body)),
        400,
      );
    }
    const now = deps.clock.now();
    const session = c.get('consoleSession')!;
    if (!(await claimConsoleForm(deps.db, { sessionTokenHash: session.tokenHash, token: createToken, now })))
      return answerView(c, assets, createFormUsedView(), 409);
    const request = parsed.data;
    const issued = await issueRequestedCode(c, deps, request);
    return answerView(c, assets, createdCodeView({ ...issued, uses: request.uses }));
  });

  router.post('/codes/:id/prechecks/:precheck/:decision{approve|deny}', async (c) => {
    const body = await checkedForm(c, deps);
    const reason = OperatorReasonSchema.safeParse(text(body.reason) || undefined);
    if (!reason.success) throw new ConsoleRefusal(400, 'Not a reason', describeIssues(reason.error));
    const decision = c.req.param('decision') as 'approve' | 'deny';
    const installCodeId = c.req.param('id');
    await decidePrecheck(deps.db, {
      input: { decider: 'operator', installCodeId, precheckId: c.req.param('precheck'), decision },
      now: deps.clock.now(),
      context: operatorChangeContext(c, reason.data ?? null),
    });
    setConsoleHeaders(c);
    return c.redirect(`/admin/codes/${encodeURIComponent(installCodeId)}?decided=${decision}`, 303);
  });
}
