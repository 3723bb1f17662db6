import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { BROWSER_SESSION_COOKIE, findBrowserSession, openBrowserSession } from '../domain/browser-sessions/sessions.js';
import { checksFor } from '../domain/rate-limits/limiter.js';
import { ApiError } from '../errors.js';
import { compressedBody } from '../http/compressed-body.js';
import { admitCounted, checkSources } from '../http/enforce-rate-limits.js';
import { rateLimitDescription, rateLimitHeaderDocs } from '../http/rate-limit-headers.js';
import type { Router } from '../http/router.js';
import { loadPageAssets, type PageAsset } from '../page/page-assets.js';
import { renderComeBackPage } from '../page/come-back-page.js';
import { chooseLanguage, findByTag, LANGUAGE_COOKIE } from '../page/i18n/choose-language.js';
import { loadPageLanguages, type PageLanguage } from '../page/i18n/page-languages.js';
import { pseudoLanguage } from '../page/i18n/pseudo-language.js';
import { renderSlowdnsPage, SLOWDNS_PAGE_CSP } from '../page/slowdns-page.js';
import { errorResponses } from '../schemas/envelope.js';
import { headerRef } from '../schemas/response-headers.js';
import type { RouteDeps } from '../deps.js';
import { prose } from '../openapi-prose.js';

const slowdnsPage = createRoute({
  method: 'get',
  path: '/slowdns',
  operationId: 'getSlowdnsPage',
  tags: ['install-codes'],
  // Public: anyone may load the page; it is what hands out the session.
  security: [],
  summary: 'The SlowDNS page (sets the browser session)',
  request: {
    query: z.object({
      lang: z.string().max(35).optional().openapi({
        description:
          "The language picked with the page's links: `en`, `fa`, `ar`, `id`, `es`, `ru`, `zh-Hans` or `tr` (`en-XA`, the pseudo-locale, for translators). Remembered in the `slowdns_lang` cookie; a tag the page does not speak is ignored.",
        example: 'fa',
      }),
    }),
  },
  description: prose`The page people open to get an install code. Without a valid \`${BROWSER_SESSION_COOKIE}\` session it
    creates one: a random 256-bit cookie, \`HttpOnly\`, \`SameSite=Lax\`, \`Path=/\`, with \`Max-Age\` =
    \`BROWSER_SESSION_TTL_SECONDS\` and \`Secure\` when \`PUBLIC_BASE_URL\` is https. A valid session is kept,
    not replaced. The server stores only the cookie's SHA-256. A \`HEAD\` request never creates a session.

The page loads only its own scripts and stylesheet from this service (\`/slowdns/page-kit.js\`,
    \`/slowdns/app.js\`, \`/slowdns/watch.js\`, \`/slowdns/approval.js\`, \`/slowdns/app.css\`) and calls only
    \`POST /api/v2/slowdns/code/issue\` (sending the optional \`browser_signal\`, and \`require_approval\`
    from its checkbox "Ask me before a machine can use this code", which \`APPROVAL_POLICY=off\` leaves out
    and \`required\` shows ticked and fixed), \`GET /api/v2/slowdns/code/status\` (which it polls to tell the
    person, live, which machine checked, activated or installed with the code, and to list the machines
    waiting for approval), \`POST /api/v2/slowdns/code/approve\` and \`/code/deny\` (Approve and Deny beside
    each waiting machine; Deny after a confirmation) and \`POST /api/v2/slowdns/code/cancel\` ("Not you?
    Cancel this code", after a confirmation). It is answered with \`Cache-Control: no-store\`,
    \`Referrer-Policy: no-referrer\` and a \`Content-Security-Policy\` that allows no inline script or style
    and no other origin.

The page speaks the person's language (DESIGN §30): the one picked with its \`?lang=\` links (remembered in
    the \`slowdns_lang\` cookie for a year), else the first of \`Accept-Language\` it speaks whose translation a
    native speaker has checked, else English; it says which in \`Content-Language\` and answers
    \`Vary: Accept-Language, Cookie\`. The API's error codes and messages stay English; the page says them in its
    own words.

Over \`session-ip-hour\`, a request without a valid session gets 429 and no cookie: an HTML page (not the
    JSON envelope, since a person reads it) saying in words when to come back, with \`Retry-After\` and the
    \`RateLimit\` headers. A browser that sends its valid cookie still gets the page, without \`RateLimit\`
    headers.

${rateLimitDescription('page')}`,
  responses: {
    200: {
      description: 'The HTML page.',
      headers: {
        'Set-Cookie': headerRef('Set-Cookie'),
        Vary: headerRef('Vary'),
        'Content-Language': headerRef('Content-Language'),
        ...rateLimitHeaderDocs('page'),
        'Content-Security-Policy': headerRef(
          'Content-Security-Policy',
          `Only this service's own scripts, styles and API: \`${SLOWDNS_PAGE_CSP}\`.`,
        ),
        'Referrer-Policy': headerRef('Referrer-Policy'),
        'Cache-Control': headerRef('Cache-Control', 'Always `no-store`.'),
      },
      content: {
        'text/html': {
          schema: z.string().max(65_536).openapi({
            example: '<!doctype html><html lang="en"><head><title>SlowDNS</title></head><body>…</body></html>',
          }),
        },
      },
    },
    ...errorResponses(),
    429: {
      description:
        "Over `session-ip-hour`: an HTML page, in the page's language, that says when to come back (after how long, and the UTC time). No session cookie is set.",
      headers: {
        'Retry-After': headerRef('Retry-After'),
        'Set-Cookie': headerRef('Set-Cookie', 'Only `slowdns_lang`, after a `?lang=` link: no session is opened.'),
        Vary: headerRef('Vary'),
        'Content-Language': headerRef('Content-Language'),
        ...rateLimitHeaderDocs('page'),
        'Content-Security-Policy': headerRef('Content-Security-Policy', 'As on the page.'),
        'Referrer-Policy': headerRef('Referrer-Policy'),
        'Cache-Control': headerRef('Cache-Control', 'Always `no-store`.'),
      },
      content: {
        'text/html': {
          schema: z.string().max(65_536).openapi({
            example:
              '<!doctype html><html lang="en"><head><title>SlowDNS · Come back later</title></head><body>…</body></html>',
          }),
        },
      },
    },
  },
});

function setPageSecurityHeaders(c: Context): void {
  c.header('Content-Security-Policy', SLOWDNS_PAGE_CSP);
  c.header('Referrer-Policy', 'no-referrer');
}

/** The page's script and stylesheet: plain routes, left out of the OpenAPI document (not for integrators). */
function registerPageAsset(app: Router, asset: PageAsset): void {
  const send = compressedBody(async () => asset.body);
  app.get(asset.path, (c) => {
    setPageSecurityHeaders(c);
    // The page links to the versioned URL, which can be cached for good; any other URL is revalidated.
    c.header('Cache-Control', c.req.query('v') === asset.version ? 'public, max-age=31536000, immutable' : 'no-cache');
    return send(c, { 'Content-Type': asset.contentType });
  });
}

/** A year: the language picked is a lasting preference, not a session. */
const LANGUAGE_COOKIE_MAX_AGE = 365 * 24 * 3600;

/**
 * The language of this answer (DESIGN §30), and the cookie that remembers a `?lang=` link. Every answer of the
 * page depends on `Accept-Language` and on the cookie, so says so to caches.
 */
function pageLanguage(c: Context, languages: readonly PageLanguage[], secure: boolean): PageLanguage {
  const query = c.req.query('lang');
  const language = chooseLanguage(languages, {
    query,
    cookie: getCookie(c, LANGUAGE_COOKIE),
    acceptLanguage: c.req.header('Accept-Language'),
  });
  // A link naming a language the page speaks (`zh` included) is a choice to remember.
  if (query !== undefined && findByTag(languages, query)) {
    setCookie(c, LANGUAGE_COOKIE, language.tag, {
      httpOnly: true,
      sameSite: 'Lax',
      path: '/slowdns',
      maxAge: LANGUAGE_COOKIE_MAX_AGE,
      secure,
    });
  }
  c.header('Vary', 'Accept-Language, Cookie');
  c.header('Content-Language', language.tag);
  return language;
}

export function registerBrowserPage(app: Router, deps: RouteDeps): void {
  const assets = loadPageAssets();
  const listed = loadPageLanguages();
  const languages = [...listed, pseudoLanguage(listed[0]!)];
  // Rendered once per language when the app is built: a missing message stops the start, not a request.
  const pages = new Map(
    languages.map((language) => [
      language.tag,
      renderSlowdnsPage({
        language,
        languages,
        kitScriptUrl: assets.kitScript.versionedUrl,
        scriptUrl: assets.script.versionedUrl,
        watchScriptUrl: assets.watchScript.versionedUrl,
        approvalScriptUrl: assets.approvalScript.versionedUrl,
        styleUrl: assets.style.versionedUrl,
        installCodeTtlSeconds: deps.config.installCodeTtlSeconds,
        approvalPolicy: deps.config.approvalPolicy,
      }),
    ]),
  );
  const secure = deps.config.publicBaseUrl.protocol === 'https:';
  registerPageAsset(app, assets.kitScript);
  registerPageAsset(app, assets.script);
  registerPageAsset(app, assets.watchScript);
  registerPageAsset(app, assets.approvalScript);
  registerPageAsset(app, assets.style);

  app.openapi(slowdnsPage, async (c) => {
    // Refusals included: nothing this route answers may be cached.
    c.header('Cache-Control', 'no-store');
    const language = pageLanguage(c, languages, secure);
    const now = deps.clock.now();
    const existing = await findBrowserSession(deps.db, getCookie(c, BROWSER_SESSION_COOKIE), now);
    // HEAD (link checkers, monitors) gets the page's headers but never a session row.
    if (!existing && c.req.method !== 'HEAD') {
      const ttl = deps.config.browserSessionTtlSeconds;
      let cookieValue: string;
      try {
        ({ cookieValue } = admitCounted(
          c,
          await openBrowserSession(
            deps.db,
            now,
            ttl,
            checksFor('page', { ip: c.get('clientKey') }, await checkSources(deps, now)),
          ),
        ));
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'rate_limit_exceeded') throw error;
        // A person, not an integrator, is reading this answer: a page saying when to come back.
        const retryAfterSeconds = Number(error.headers['Retry-After']);
        setPageSecurityHeaders(c);
        const page = renderComeBackPage({
          language,
          languages,
          styleUrl: assets.style.versionedUrl,
          retryAfterSeconds,
          resetAt: new Date(now.getTime() + retryAfterSeconds * 1000),
        });
        return c.html(page, 429, error.headers);
      }
      setCookie(c, BROWSER_SESSION_COOKIE, cookieValue, {
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
        maxAge: ttl,
        secure,
      });
    }
    setPageSecurityHeaders(c);
    return c.html(pages.get(language.tag)!, 200);
  });
}
