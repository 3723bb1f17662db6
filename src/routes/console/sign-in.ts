import type { Context, Hono } from 'hono';
import { checkSources } from '../../http/enforce-rate-limits.js';
import type { ConsoleAssets } from '../../console/console-frame.js';
import { signInView, signInWaitView, type SignInNotice } from '../../console/sign-in-view.js';
import type { RouteDeps } from '../../deps.js';
import { endConsoleSession } from '../../domain/operators/console-sessions.js';
import {
  checksFor,
  consumeRateLimits,
  refundRateLimits,
  type RateLimitCheck,
} from '../../domain/rate-limits/limiter.js';
import { secondsToBucketEnd, bucketEnd } from '../../domain/rate-limits/policies.js';
import {
  clearConsoleCookie,
  formRefusal,
  hasConsoleCookie,
  operatorSigningIn,
  startConsoleSession,
} from '../../http/console-session.js';
import type { AppEnv } from '../../http/app-env.js';
import { assertSameOrigin } from '../../http/same-origin.js';
import { answerView, ConsoleRefusal, refuseForm } from './console-answer.js';
import type { OidcRelyingParty } from '../../domain/operators/oidc-sign-in.js';
import { providerSignOut } from './sso-sign-in.js';

/** A refused sign-in is answered this much later: a token cannot be guessed at the speed of the network. */
const REFUSED_SIGN_IN_DELAY_MS = 1000;

/** Where to go after signing in: a console view's path, never anywhere else. */
const CONSOLE_PATH = /^\/admin(\/[A-Za-z0-9_-]+){0,3}$/;

function safeNext(value: unknown): string | undefined {
  return typeof value === 'string' && CONSOLE_PATH.test(value) ? value : undefined;
}

/**
 * The sign-in form in place of what was asked: 200 at /admin, 401 anywhere else. A cookie that names no
 * live session is cleared, and the form says the session ended.
 */
export function answerSignIn(
  c: Context<AppEnv>,
  deps: RouteDeps,
  assets: ConsoleAssets,
  notice?: SignInNotice,
): Response {
  let shown = notice;
  if (!deps.config.adminToken && !deps.config.oidc) shown = 'disabled';
  else if (!shown && hasConsoleCookie(c, deps.config.consolePublicUrl)) {
    clearConsoleCookie(c, deps.config.consolePublicUrl);
    shown = 'ended';
  }
  const path = c.req.path.replace(/\/$/, '');
  const atHome = path === '/admin';
  return answerView(
    c,
    assets,
    signInView(shown, atHome || c.req.method !== 'GET' ? undefined : safeNext(path), {
      sso: deps.config.oidc !== undefined,
      tokens: deps.config.consoleTokenSignIn && deps.config.adminToken !== undefined,
    }),
    atHome && shown !== 'refused' ? 200 : 401,
  );
}

function answerWait(c: Context<AppEnv>, assets: ConsoleAssets, check: RateLimitCheck, now: Date): Response {
  const seconds = secondsToBucketEnd(now, check.policy.windowSeconds);
  c.header('Retry-After', String(seconds));
  return answerView(c, assets, signInWaitView(seconds, bucketEnd(now, check.policy.windowSeconds)), 429);
}

export function registerConsoleSignIn(
  router: Hono<AppEnv>,
  deps: RouteDeps,
  assets: ConsoleAssets,
  party: OidcRelyingParty | undefined,
): void {
  router.post('/sign-in', async (c) => {
    assertSameOrigin(c, deps.config.publicBaseUrl);
    // CONSOLE_TOKEN_SIGN_IN=false (DESIGN §26): refused here, not only left off the page.
    if (!deps.config.consoleTokenSignIn)
      throw new ConsoleRefusal(
        403,
        'Token sign-in is off',
        'This console signs in with the identity provider only (CONSOLE_TOKEN_SIGN_IN=false). Operator tokens still work with the admin API and the slowdns command.',
      );
    if (!deps.config.adminToken) return answerSignIn(c, deps, assets);
    const now = deps.clock.now();
    // Counted before the token is checked, so a burst is never checked past the limit (DESIGN §23); a sign-in
    // that succeeds gives its unit back: only refused sign-ins stay counted, and once they fill the bucket no
    // sign-in from the address is even tried.
    const checks = checksFor('console-sign-in', { ip: c.get('clientKey') }, await checkSources(deps, now));
    const decision = await consumeRateLimits(deps.db, checks, now);
    if (!decision.admitted)
      return answerWait(c, assets, checks.find((check) => check.policy.name === decision.blocking.policy.name)!, now);
    const body = await c.req.parseBody();
    const who = typeof body.token === 'string' ? await operatorSigningIn(deps, body.token.trim()) : undefined;
    if (!who) {
      await new Promise((resolve) => setTimeout(resolve, REFUSED_SIGN_IN_DELAY_MS));
      return answerSignIn(c, deps, assets, 'refused');
    }
    await refundRateLimits(deps.db, checks, now);
    await startConsoleSession(c, deps, who);
    return c.redirect(safeNext(body.next) ?? '/admin', 303);
  });

  router.post('/sign-out', async (c) => {
    const session = c.get('consoleSession');
    let atProvider: string | undefined;
    if (session) {
      const body = await c.req.parseBody();
      refuseForm(formRefusal(c, deps.config.publicBaseUrl, session, body.form_token));
      await endConsoleSession(deps.db, session.tokenHash);
      // RP-initiated sign-out: the provider ends its session too, then sends the person back signed out.
      if (session.issuer !== undefined) atProvider = await providerSignOut(party, deps.config.consolePublicUrl);
    }
    clearConsoleCookie(c, deps.config.consolePublicUrl);
    c.header('Cache-Control', 'no-store');
    return c.redirect(atProvider ?? '/admin?signed_out=1', 303);
  });
}
