import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ConsoleAssets } from '../../console/console-frame.js';
import { ssoRefusalView, ssoSignedInView } from '../../console/sso-views.js';
import type { RouteDeps } from '../../deps.js';
import { endConsoleSession, oidcOperatorName } from '../../domain/operators/console-sessions.js';
import { OIDC_FLOW_SECONDS } from '../../domain/operators/oidc-flows.js';
import {
  OidcSignInRefused,
  type OidcRelyingParty,
  type OidcRefusalReason,
} from '../../domain/operators/oidc-sign-in.js';
import type { AppEnv } from '../../http/app-env.js';
import { consoleCookie, startConsoleSession } from '../../http/console-session.js';
import { answerView, ConsoleRefusal } from './console-answer.js';

/** Where to go after signing in: a console view's path, never anywhere else. */
const CONSOLE_PATH = /^\/admin(\/[A-Za-z0-9_-]+){0,3}$/;

const REFUSAL_STATUS: Record<OidcRefusalReason, ContentfulStatusCode> = {
  no_flow: 400,
  state: 400,
  provider_refused: 403,
  code: 400,
  id_token: 401,
  no_role: 403,
  unavailable: 503,
};

/** The redirect URI registered at the provider: `<CONSOLE_PUBLIC_URL>/admin/sign-in/callback`. */
export function oidcRedirectUri(consolePublicUrl: URL): URL {
  return new URL('/admin/sign-in/callback', consolePublicUrl);
}

function answerRefusal(c: Context<AppEnv>, deps: RouteDeps, assets: ConsoleAssets, error: OidcSignInRefused): Response {
  deps.logger.warn('console sign-in refused', {
    request_id: c.get('requestId'),
    reason: error.reason,
    ...(error.detail ? { detail: error.detail } : {}),
  });
  if (error.reason === 'unavailable') c.header('Retry-After', '60');
  return answerView(c, assets, ssoRefusalView(error.reason), REFUSAL_STATUS[error.reason]);
}

/**
 * Sign-in with the identity provider (DESIGN §26): `GET /admin/sign-in/oidc` starts it (a link, so no
 * form leaves for another origin), `GET /admin/sign-in/callback` finishes it into a console session.
 */
export function registerConsoleSsoSignIn(
  router: Hono<AppEnv>,
  deps: RouteDeps,
  assets: ConsoleAssets,
  party: OidcRelyingParty,
): void {
  // The sign-in's own cookie: `SameSite=Lax`, so the provider's redirect back to the callback carries it.
  const { name: flowCookie, secure } = consoleCookie(deps.config.consolePublicUrl, 'slowdns_oidc_flow');

  router.get('/sign-in/oidc', async (c) => {
    const next = c.req.query('next');
    const returnTo = next !== undefined && CONSOLE_PATH.test(next) ? next : '/admin';
    try {
      const { cookieValue, authorizationUrl } = await party.start(deps.db, returnTo, deps.clock.now());
      setCookie(c, flowCookie, cookieValue, {
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
        secure,
        maxAge: OIDC_FLOW_SECONDS,
      });
      return c.redirect(authorizationUrl.href, 303);
    } catch (error) {
      if (error instanceof OidcSignInRefused) return answerRefusal(c, deps, assets, error);
      throw error;
    }
  });

  router.get('/sign-in/callback', async (c) => {
    const cookieValue = getCookie(c, flowCookie);
    deleteCookie(c, flowCookie, { path: '/', secure });
    const query = new URL(c.req.url).searchParams;
    let signedIn: Awaited<ReturnType<OidcRelyingParty['finish']>>;
    try {
      signedIn = await party.finish(deps.db, { cookieValue, query, now: deps.clock.now() });
    } catch (error) {
      if (error instanceof OidcSignInRefused) return answerRefusal(c, deps, assets, error);
      throw error;
    }
    // A session the browser already had is ended: the person gets a fresh session id, never a reused one.
    const previous = c.get('consoleSession');
    if (previous) await endConsoleSession(deps.db, previous.tokenHash);
    c.set('consoleSession', undefined);
    const operator = oidcOperatorName(signedIn.identity);
    await startConsoleSession(c, deps, {
      operator,
      scope: signedIn.role,
      credential: { oidc: signedIn.identity },
      maxSeconds: deps.config.oidc!.sessionSeconds,
    });
    c.header('Refresh', `0; url=${signedIn.returnTo}`);
    return answerView(c, assets, ssoSignedInView(operator, signedIn.returnTo), 200);
  });
}

/** The provider's end-session URL for an SSO session signing out, when it offers one. */
export async function providerSignOut(
  party: OidcRelyingParty | undefined,
  consoleUrl: URL,
): Promise<string | undefined> {
  if (!party) return undefined;
  return (await party.endSessionUrl(new URL('/admin?signed_out=1', consoleUrl)))?.href;
}

/** A sign-in path reached on a console without an identity provider. */
export function refuseSsoOff(router: Hono<AppEnv>): void {
  for (const path of ['/sign-in/oidc', '/sign-in/callback'])
    router.get(path, () => {
      throw new ConsoleRefusal(
        404,
        'Not found',
        'This console signs in with operator tokens only: no identity provider is set (OIDC_ISSUER).',
      );
    });
}
