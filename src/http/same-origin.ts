import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';

/**
 * The cookie-authenticated POST must come from the page itself. `hono/csrf` ignores JSON bodies, so
 * Origin and Sec-Fetch-Site are checked here. Requests without either (curl, an installer) pass:
 * they cannot carry a victim's cookie by accident.
 */
export function assertSameOrigin(c: Context, publicBaseUrl: URL): void {
  const site = c.req.header('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') throw new ApiError('cross_site_request');
  const origin = c.req.header('origin');
  if (!origin) return;
  const host = c.req.header('host');
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new ApiError('cross_site_request');
  }
  if (origin !== publicBaseUrl.origin && originHost !== host) throw new ApiError('cross_site_request');
}

/** `assertSameOrigin` as route middleware: before the body is read or validated, so another site gets 403, not 415. */
export function sameOriginOnly(publicBaseUrl: URL): MiddlewareHandler {
  return async (c, next) => {
    assertSameOrigin(c, publicBaseUrl);
    await next();
  };
}
