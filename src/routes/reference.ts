import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Scalar } from '@scalar/hono-api-reference';
import type { Context } from 'hono';
import { compressedBody } from '../http/compressed-body.js';
import type { Router } from '../http/router.js';
import type { OpenApiDocument } from '../openapi-document.js';
import { referenceShell } from './reference-shell.js';

const SCALAR_BUNDLE_PATH = '/docs/scalar.js';
const IMMUTABLE = 'public, max-age=31536000, immutable';

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

/**
 * Scalar's standalone bundle and its package version (what the bundle's URL carries). The build copies
 * both beside the compiled server (scripts/build.mjs: dist/src/routes/scalar/), so a deployment needs
 * neither Scalar's package tree (84 MB with its dependencies) nor TypeScript, which it pulls in; from the
 * sources (tsx), they are read from the package.
 */
function scalarBundle(): { file: string; version: string } {
  const copied = fileURLToPath(new URL('./scalar/', import.meta.url));
  const from = existsSync(copied)
    ? copied
    : join(dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')), '..');
  const { version } = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8')) as { version: string };
  return { file: join(from, 'dist', 'browser', 'standalone.js'), version };
}

/** Replaces the one `from` in Scalar's page; throws if a Scalar upgrade changed it (the tests render the page). */
function replaceOnce(html: string, from: string | RegExp, to: string): string {
  if (!(typeof from === 'string' ? html.includes(from) : from.test(html)))
    throw new Error(`Scalar's page changed: ${String(from)} not found`);
  return html.replace(from, () => to);
}

/**
 * Hands the page over from the shell to Scalar once Scalar shows the API's title: Scalar mounts at once
 * but paints an empty frame (sidebar, no content) until it has processed the document, a second or
 * more, and the shell stays on top until then. If Scalar never renders (an error), the shell stays.
 */
const SHELL_HANDOVER = `const shell = document.querySelector('.reference-shell');
      new MutationObserver((_, observer) => {
        if (!document.querySelector('#app h1')) return;
        shell?.remove();
        observer.disconnect();
      }).observe(document.getElementById('app'), { childList: true, subtree: true });
      `;

/**
 * Scalar's page, made to paint at once. It says no language and has no icon (the browser would ask for
 * /favicon.ico and log a 404). Its bundle blocked the first paint, and the document was only asked for
 * once the bundle had run: now the server-rendered shell (reference-shell.ts) paints with the page, the
 * bundle is deferred and its init runs after it (an inline module script runs, like a deferred script,
 * once the page is parsed, in order), and the document is preloaded alongside the bundle. The shell
 * lies over Scalar's mount point until Scalar has content to show (SHELL_HANDOVER).
 */
function withFastFirstPaint(html: string, bundleUrl: string, shell: { markup: string; style: string }): string {
  html = replaceOnce(html, '<html>', '<html lang="en">');
  html = replaceOnce(
    html,
    '<meta charset="utf-8" />',
    '<meta charset="utf-8" />\n    <link rel="icon" href="data:," />\n    <link rel="preload" href="/openapi.json" as="fetch" crossorigin />',
  );
  html = replaceOnce(html, '</style>', `${shell.style}\n    </style>`);
  html = replaceOnce(html, '<div id="app"></div>', `${shell.markup}<div id="app"></div>`);
  html = replaceOnce(html, `<script src="${bundleUrl}"></script>`, `<script src="${bundleUrl}" defer></script>`);
  return replaceOnce(
    html,
    /<script type="text\/javascript">\s*(?=Scalar\.createApiReference)/,
    `<script type="module">\n      ${SHELL_HANDOVER}`,
  );
}

/**
 * `GET /openapi.json` (the document, built once at its first request) and `GET /docs`, the Scalar reference.
 * Scalar's bundle is served from here and its fonts, telemetry, proxy and agent chat are off: the page works offline.
 */
export function registerReference(app: Router, document: () => OpenApiDocument | undefined): void {
  // 240 KB of JSON, a tenth of it compressed: made at the first request, like the page.
  const sendDocument = compressedBody(async () => JSON.stringify(document()));
  app.get('/openapi.json', (c) => sendDocument(c, { 'Content-Type': 'application/json' }));

  // 3.5 MB of JavaScript: read, compressed and kept at its first request, under a URL that names
  // Scalar's version, so browsers keep it for good and a new version is a new URL.
  const scalar = scalarBundle();
  const bundleUrl = `${SCALAR_BUNDLE_PATH}?v=${scalar.version}`;
  const sendBundle = compressedBody(() => readFile(scalar.file));
  app.get(SCALAR_BUNDLE_PATH, (c) => {
    c.header('Cache-Control', c.req.query('v') === scalar.version ? IMMUTABLE : 'no-cache');
    return sendBundle(c, { 'Content-Type': 'text/javascript; charset=utf-8' });
  });

  // Defence in depth for "nothing leaves the service": even if a Scalar upgrade turns a loader back
  // on, the browser refuses it. Scalar's page has an inline style and an inline init script, and its
  // bundle needs no eval.
  app.use('/docs', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', DOCS_CSP);
    c.header('Referrer-Policy', 'no-referrer');
  });
  const renderPage = Scalar({
    url: '/openapi.json',
    cdn: bundleUrl,
    pageTitle: 'SlowDNS activation API',
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    // Every tag starts collapsed, the first one too: Scalar renders a tag's operations (their markdown,
    // schemas and examples) only once it is opened, from the sidebar or its "Show more" button, and
    // a first tag opened at load was most of its rendering work.
    defaultOpenFirstTag: false,
    showDeveloperTools: 'never',
    // The agent chat loads a curated API registry from api.scalar.com through proxy.scalar.com.
    agent: { disabled: true },
  });
  // Scalar renders the same page for every request: rendered (and compressed) once, at the first.
  let html: Promise<string> | undefined;
  const sendPage = compressedBody(() => html!);
  app.get('/docs', async (c) => {
    html ??= Promise.resolve(renderPage(c as unknown as Context, async () => {})).then(async (res) =>
      withFastFirstPaint(await (res as Response).text(), bundleUrl, referenceShell(document()!)),
    );
    c.header('Cache-Control', 'no-cache');
    return sendPage(c, { 'Content-Type': 'text/html; charset=utf-8' });
  });
}
