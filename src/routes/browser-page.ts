import { createRoute, z } from '@hono/zod-openapi';
import { getCookie, setCookie } from 'hono/cookie';
import { BROWSER_SESSION_COOKIE, createBrowserSession, findBrowserSession } from '../domain/browser-sessions.js';
import type { Router } from '../http/router.js';
import { renderSlowdnsPage } from '../page/slowdns-page.js';
import { errorResponses } from '../schemas/envelope.js';
import type { AppDeps } from '../app.js';

const slowdnsPage = createRoute({
  method: 'get',
  path: '/slowdns',
  operationId: 'getSlowdnsPage',
  tags: ['install-codes'],
  summary: 'The SlowDNS page (sets the browser session)',
  description: `The page people open to get an install code. Without a valid \`${BROWSER_SESSION_COOKIE}\` session it creates one: a random 256-bit cookie, \`HttpOnly\`, \`SameSite=Lax\`, \`Path=/\`, with \`Max-Age\` = \`BROWSER_SESSION_TTL_SECONDS\` and \`Secure\` when \`PUBLIC_BASE_URL\` is https. A valid session is kept, not replaced. The server stores only the cookie's SHA-256.`,
  responses: {
    200: {
      description: 'The HTML page.',
      headers: { 'Set-Cookie': { description: `\`${BROWSER_SESSION_COOKIE}\`, when the request had no valid session.`, schema: { type: 'string' } } },
      content: { 'text/html': { schema: z.string() } },
    },
    ...errorResponses(),
  },
});

export function registerBrowserPage(app: Router, deps: AppDeps): void {
  app.openapi(slowdnsPage, async (c) => {
    const now = deps.clock.now();
    const existing = await findBrowserSession(deps.db, getCookie(c, BROWSER_SESSION_COOKIE), now);
    if (!existing) {
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
    c.header('Cache-Control', 'no-store');
    return c.html(renderSlowdnsPage(), 200);
  });
}
