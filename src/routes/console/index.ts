import { Hono } from 'hono';
import { loadConsoleAssets } from '../../console/console-assets.js';
import { errorView } from '../../console/error-view.js';
import type { RouteDeps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { compressedBody } from '../../http/compressed-body.js';
import { consoleSession } from '../../http/console-session.js';
import { operatorReads } from '../../http/operator-reads.js';
import type { AppEnv } from '../../http/app-env.js';
import type { Router } from '../../http/router.js';
import { errorFields } from '../../logger.js';
import type { PageAsset } from '../../page/page-assets.js';
import { registerConsoleActions } from './actions.js';
import { answerView, ConsoleRefusal, setConsoleHeaders } from './console-answer.js';
import { answerSignIn, registerConsoleSignIn } from './sign-in.js';
import { registerConsoleFleetCodes } from './fleet-codes.js';
import { registerConsoleWebhookCreate } from './webhook-create.js';
import { registerConsoleViews } from './views.js';
import { consoleCsp } from '../../console/console-frame.js';
import { OidcRelyingParty } from '../../domain/operators/oidc-sign-in.js';
import { oidcRedirectUri, refuseSsoOff, registerConsoleSsoSignIn } from './sso-sign-in.js';
import { registerConsoleOperators } from './operators.js';

/** What a refusal of the API's domain says on a console page: the error map's message, which is safe to show operators. */
const HEADINGS: Partial<Record<number, string>> = {
  400: 'Not valid',
  403: 'Refused',
  404: 'Not found',
  409: 'Not possible now',
};

/**
 * The operator console under /admin (DESIGN §18): server-rendered pages over the same domain functions
 * as the admin API, signed in with an operator token into a server-side session. Not part of the API
 * document: it answers HTML for people, refusals included.
 */
function createConsoleRouter(deps: RouteDeps): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const files = loadConsoleAssets();
  const assets = {
    pageStyleUrl: files.pageStyle.versionedUrl,
    styleUrl: files.style.versionedUrl,
    scriptUrl: files.script.versionedUrl,
  };
  for (const asset of [files.pageStyle, files.style, files.script]) serveAsset(router, asset);

  const party = deps.config.oidc
    ? new OidcRelyingParty(deps.config.oidc, oidcRedirectUri(deps.config.consolePublicUrl))
    : undefined;
  router.use('*', async (c, next) => {
    // Per request: the provider's end-session origin joins the policy once discovery has named it.
    c.set('consoleCsp', consoleCsp(party?.formOrigins()));
    setConsoleHeaders(c);
    await next();
  });
  router.use('*', consoleSession(deps));
  router.use('*', operatorReads(deps.reads));
  registerConsoleSignIn(router, deps, assets, party);
  if (party) registerConsoleSsoSignIn(router, deps, assets, party);
  else refuseSsoOff(router);
  // Everything else needs a live session: without one, the sign-in form, and nothing of the fleet.
  router.use('*', async (c, next) => {
    if (!c.get('consoleSession'))
      return answerSignIn(c, deps, assets, c.req.query('signed_out') ? 'signed_out' : undefined);
    await next();
  });
  registerConsoleFleetCodes(router, deps, assets);
  registerConsoleWebhookCreate(router, deps, assets);
  registerConsoleViews(router, deps, assets);
  registerConsoleActions(router, deps);
  registerConsoleOperators(router, deps, assets);

  router.onError((error, c) => {
    if (error instanceof ConsoleRefusal)
      return answerView(c, assets, errorView(error.heading, error.message), error.status);
    if (error instanceof ApiError && error.status < 500) {
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      const message =
        error.code === 'cross_site_request'
          ? 'This request came from another site, not from a page of this console. Nothing was changed.'
          : error.message;
      return answerView(c, assets, errorView(HEADINGS[error.status] ?? 'Refused', message), error.status);
    }
    deps.logger.error('unhandled error', { request_id: c.get('requestId'), ...errorFields(error) });
    return answerView(
      c,
      assets,
      errorView(
        'Something went wrong',
        'The console could not answer this request. Try again; if it keeps failing, the service log has this request (by its X-Request-Id).',
      ),
      500,
    );
  });
  return router;
}

/** The console's own files: versioned URLs cached for good, as the page's are. */
function serveAsset(router: Hono<AppEnv>, asset: PageAsset): void {
  const path = asset.path.replace(/^\/admin/, '');
  const send = compressedBody(async () => asset.body);
  router.get(path, (c) => {
    c.header('Cache-Control', c.req.query('v') === asset.version ? 'public, max-age=31536000, immutable' : 'no-cache');
    return send(c, { 'Content-Type': asset.contentType });
  });
}

/** The console on the main listener, unless CONSOLE_PORT gives it a listener of its own. */
export function registerConsole(app: Router, deps: RouteDeps): void {
  app.route('/admin', createConsoleRouter(deps));
}
