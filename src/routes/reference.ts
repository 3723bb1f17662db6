import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Scalar } from '@scalar/hono-api-reference';
import type { Router } from '../http/router.js';

const SCALAR_BUNDLE_PATH = '/docs/scalar.js';

const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function scalarBundleFile(): string {
  const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return join(dirname(entry), 'browser', 'standalone.js');
}

/**
 * `GET /openapi.json` (the document built once at start) and `GET /docs`, the Scalar reference.
 * Scalar's bundle is served from here and its fonts, telemetry, proxy and agent chat are off: the page works offline.
 */
export function registerReference(app: Router, document: () => unknown): void {
  app.get('/openapi.json', (c) => c.json(document()));

  let bundle: Promise<string> | undefined;
  app.get(SCALAR_BUNDLE_PATH, async (c) => {
    bundle ??= readFile(scalarBundleFile(), 'utf8');
    c.header('Cache-Control', 'public, max-age=86400');
    return c.body(await bundle, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
  });

  // Defence in depth for "nothing leaves the service": even if a Scalar upgrade turns a loader back
  // on, the browser refuses it. Scalar's page has an inline style and an inline init script, and its
  // bundle needs no eval.
  app.use('/docs', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', DOCS_CSP);
    c.header('Referrer-Policy', 'no-referrer');
  });
  app.get(
    '/docs',
    Scalar({
      url: '/openapi.json',
      cdn: SCALAR_BUNDLE_PATH,
      pageTitle: 'SlowDNS activation API',
      withDefaultFonts: false,
      telemetry: false,
      hideClientButton: true,
      showDeveloperTools: 'never',
      // The agent chat loads a curated API registry from api.scalar.com through proxy.scalar.com.
      agent: { disabled: true },
    }),
  );
}
