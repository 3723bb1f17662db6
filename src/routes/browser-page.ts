import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { BROWSER_SESSION_COOKIE, createBrowserSession, findBrowserSession } from '../domain/browser-sessions.js';
import { checksFor } from '../domain/rate-limits/limiter.js';
import { enforceRateLimits } from '../http/enforce-rate-limits.js';
import { rateLimitDescription, rateLimitedResponse, rateLimitHeaderDocs } from '../http/rate-limit-headers.js';
import type { Router } from '../http/router.js';
import { loadPageAssets, type PageAsset } from '../page/page-assets.js';
import { renderSlowdnsPage, SLOWDNS_PAGE_CSP } from '../page/slowdns-page.js';
import { errorResponses } from '../schemas/envelope.js';
import type { AppDeps } from '../app.js';

const slowdnsPage = createRoute({
  method: 'get',
  path: '/slowdns',
  operationId: 'getSlowdnsPage',
  tags: ['install-codes'],
  // Public: anyone may load the page; it is what hands out the session.
  security: [],
  summary: 'The SlowDNS page (sets the browser session)',
  description: `The page people open to get an install code. Without a valid \`${BROWSER_SESSION_COOKIE}\` session it creates one: a random 256-bit cookie, \`HttpOnly\`, \`SameSite=Lax\`, \`Path=/\`, with \`Max-Age\` = \`BROWSER_SESSION_TTL_SECONDS\` and \`Secure\` when \`PUBLIC_BASE_URL\` is https. A valid session is kept, not replaced. The server stores only the cookie's SHA-256. A \`HEAD\` request never creates a session.

The page loads only its own script and stylesheet from this service (\`/slowdns/app.js\`, \`/slowdns/app.css\`) and calls only \`POST /api/v2/slowdns/code/issue\`, sending the optional \`browser_signal\`. It is answered with \`Cache-Control: no-store\`, \`Referrer-Policy: no-referrer\` and a \`Content-Security-Policy\` that allows no inline script or style and no other origin.

Over \`session-ip-hour\`, a request without a valid session gets 429 \`rate_limit_exceeded\` (the JSON error envelope, not the page) and no cookie; a browser that sends its valid cookie still gets the page, without \`RateLimit\` headers.

${rateLimitDescription('page')}`,
  responses: {
    200: {
      description: 'The HTML page.',
      headers: {
        'Set-Cookie': { description: `\`${BROWSER_SESSION_COOKIE}\`, when the request had no valid session.`, schema: { type: 'string' } },
        ...rateLimitHeaderDocs('page'),
        'Content-Security-Policy': { description: 'Only this service\'s own scripts, styles and API.', schema: { type: 'string', example: SLOWDNS_PAGE_CSP } },
        'Cache-Control': { description: 'Always `no-store`.', schema: { type: 'string', example: 'no-store' } },
      },
      content: { 'text/html': { schema: z.string() } },
    },
    ...errorResponses(),
    429: rateLimitedResponse('page'),
  },
});

function setPageSecurityHeaders(c: Context): void {
  c.header('Content-Security-Policy', SLOWDNS_PAGE_CSP);
  c.header('Referrer-Policy', 'no-referrer');
}

/** The page's script and stylesheet: plain routes, left out of the OpenAPI document (not for integrators). */
function registerPageAsset(app: Router, asset: PageAsset): void {
  app.get(asset.path, (c) => {
    setPageSecurityHeaders(c);
    // The page links to the versioned URL, which can be cached for good; any other URL is revalidated.
    c.header('Cache-Control', c.req.query('v') === asset.version ? 'public, max-age=31536000, immutable' : 'no-cache');
    return c.body(asset.body, 200, { 'Content-Type': asset.contentType });
  });
}

export function registerBrowserPage(app: Router, deps: AppDeps): void {
  const assets = loadPageAssets();
  const html = renderSlowdnsPage({
    scriptUrl: assets.script.versionedUrl,
    styleUrl: assets.style.versionedUrl,
    installCodeTtlSeconds: deps.config.installCodeTtlSeconds,
  });
  registerPageAsset(app, assets.script);
  registerPageAsset(app, assets.style);

  app.openapi(slowdnsPage, async (c) => {
    // Refusals included: nothing this route answers may be cached.
    c.header('Cache-Control', 'no-store');
    const now = deps.clock.now();
    const existing = await findBrowserSession(deps.db, getCookie(c, BROWSER_SESSION_COOKIE), now);
    // HEAD (link checkers, monitors) gets the page's headers but never a session row.
    if (!existing && c.req.method !== 'HEAD') {
      await enforceRateLimits(c, deps.db, now, checksFor('page', { ip: c.get('clientKey') }));
      const ttl = deps.config.browserSessionTtlSeconds;
      const { cookieValue } = await createBrowserSession(deps.db, now, ttl);
      setCookie(c, BROWSER_SESSION_COOKIE, cookieValue, {
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
        maxAge: ttl,
        secure: deps.config.publicBaseUrl.protocol === 'https:',
      });
    }
    setPageSecurityHeaders(c);
    return c.html(html, 200);
  });
}
