/**
 * Browser tests: Debian's Chromium driven by playwright-core against the app on a real HTTP port.
 *
 *   describeWithBrowser('the page', () => {
 *     let server: HttpServer; let browser: BrowserSession;
 *     beforeAll(async () => {
 *       server = await serveOverHttp(async (origin) => (t = await createTestApp({ PUBLIC_BASE_URL: origin })).app);
 *       browser = await openBrowser(server.origin);
 *     });
 *     afterAll(async () => { await browser?.close(); await server?.close(); await t?.close(); });
 *     it('...', async () => {
 *       await browser.page.goto(`${server.origin}/slowdns`);
 *       expect(browser.offOriginRequests()).toEqual([]);
 *     });
 *   });
 *
 * Requests go through a real socket, so the app sees 127.0.0.1 as the client address.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { serve } from '@hono/node-server';
import { chromium, type BrowserContext, type Page, type Request } from 'playwright-core';
import { describe, expect } from 'vitest';
import { fetchChecked } from './test-app.js';

/**
 * Debian's Chromium. Its headless shell (`apt-get install -y chromium-headless-shell`, the same Blink
 * without the browser's windowing layer: what Playwright itself runs for headless tests) when installed,
 * at 10 to 20% less CPU per browser file than the full browser in its headless mode; otherwise the browser.
 */
const CHROMIUM_PATH =
  ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path)) ??
  '/usr/bin/chromium';

const chromiumArgs = [
  '--headless',
  '--no-sandbox', // CI runs as root, where Chromium's sandbox refuses to start
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  // Chromium's own traffic (updates, sync, safe browsing) would muddy "no request leaves the service".
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * `describe` when Chromium is installed. Without it: in CI (CI set) the file fails loudly; elsewhere
 * the block is skipped with a message saying how to install it.
 */
export function describeWithBrowser(name: string, body: () => void): void {
  if (existsSync(CHROMIUM_PATH)) {
    describe(name, body);
    return;
  }
  const message = `${CHROMIUM_PATH} is missing: browser tests need Debian's Chromium (apt-get install -y chromium)`;
  if (process.env.CI) throw new Error(`${message}; CI must run them`);
  console.warn(`skipping "${name}": ${message}`);
  describe.skip(name, body);
}

type Fetchable = Parameters<typeof fetchChecked>[0];

export interface HttpServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  origin: string;
  close(): Promise<void>;
}

/**
 * Serves an app on 127.0.0.1 on a free port. `build` gets the origin first, so the app can be
 * configured with it (e.g. `PUBLIC_BASE_URL`, which the same-site checks compare against).
 */
export async function serveOverHttp(build: (origin: string) => Fetchable | Promise<Fetchable>): Promise<HttpServer> {
  let app: Fetchable | undefined;
  const server = serve({
    fetch: (request, env) => (app ? fetchChecked(app, request, env) : new Response('starting', { status: 503 })),
    port: 0,
    hostname: '127.0.0.1',
  });
  await new Promise<void>((resolve, reject) => {
    if (server.listening) return resolve();
    server.once('listening', resolve).once('error', reject);
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = await build(origin);
  return {
    origin,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive sockets of the browser would otherwise hold close() open.
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}

export interface BrowserSession {
  page: Page;
  context: BrowserContext;
  /** Every URL the page (and its workers) requested, in order; data: and blob: URLs left out. */
  requests: string[];
  /** The recorded requests whose origin is not the service's: what a test expects to be empty. */
  offOriginRequests(): string[];
  /** Console errors and uncaught page errors, as text. */
  errors: string[];
  /**
   * The page's waits brought forward (with `{ clock: true }`: the page's clock is installed before it
   * loads, and flows with real time otherwise): moves the page's clock on by `ms`, firing the timers due,
   * while no request of the page is in flight, so that a poll due within `ms` runs now instead of in real
   * time. A request in flight is left to finish first: its own timeout must not pass in a jump.
   */
  tick(ms?: number): Promise<void>;
  /**
   * Between tests: a blank page (the last test's page stops polling before its session goes, so no
   * stray 403 reaches the next test's console), no cookies, no page routes, this viewport, the light
   * scheme, nothing recorded.
   */
  reset(viewport: { width: number; height: number }): Promise<void>;
  close(): Promise<void>;
}

/**
 * Headless Chromium with a fresh profile, recording every request. Requests to any other origin are
 * also aborted, so a test that fails on them never reaches the internet (nor waits on it); `alsoAllow`
 * names further local origins a test serves itself (another site, for cross-site requests).
 */
export async function openBrowser(
  origin: string,
  { alsoAllow = [], clock = false }: { alsoAllow?: string[]; clock?: boolean } = {},
): Promise<BrowserSession> {
  const profile = await mkdtemp(join(tmpdir(), 'slowdns-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: chromiumArgs,
    serviceWorkers: 'block',
  });
  const requests: string[] = [];
  const errors: string[] = [];
  const record = (url: string) => {
    if (!/^(data|blob):/.test(url)) requests.push(url);
  };
  const isOffOrigin = (url: string) => {
    try {
      return new URL(url).origin !== origin;
    } catch {
      return true;
    }
  };
  const inFlight = new Set<Request>();
  context.on('request', (request) => {
    record(request.url());
    inFlight.add(request);
  });
  context.on('requestfinished', (request) => inFlight.delete(request));
  context.on('requestfailed', (request) => inFlight.delete(request));
  if (clock) await context.clock.install();
  await context.route(
    (url) =>
      url.origin !== origin && !alsoAllow.includes(url.origin) && url.protocol !== 'data:' && url.protocol !== 'blob:',
    (route) => route.abort('blockedbyclient'),
  );
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('websocket', (socket) => record(socket.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  return {
    page,
    context,
    requests,
    offOriginRequests: () => requests.filter(isOffOrigin),
    errors,
    tick: async (ms = 1_000) => {
      if (!clock) throw new Error('tick() needs openBrowser(origin, { clock: true })');
      if (inFlight.size === 0) await page.clock.runFor(ms);
    },
    reset: async (viewport) => {
      await page.goto('about:blank');
      await context.clearCookies();
      await page.unrouteAll();
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme: 'light' });
      errors.length = 0;
      requests.length = 0;
      inFlight.clear();
    },
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Where screenshots go: SLOWDNS_SCREENS_DIR, which `npm run screens` sets. Unset (`npm test`), none is
 * taken: the tests assert what a picture would show (axe, nothing wider than the screen), and a person
 * looks at the pictures when the page changes.
 */
const screensDir = process.env.SLOWDNS_SCREENS_DIR;

/**
 * axe-core finds nothing on the page as it is: one pass per state, in the light scheme. `npm run screens`
 * (SLOWDNS_SCREENS_DIR set), which a person runs when the page changes, checks the dark scheme too.
 */
export async function expectAccessible(page: Page, state: string): Promise<void> {
  for (const colorScheme of screensDir ? (['light', 'dark'] as const) : (['light'] as const)) {
    await page.emulateMedia({ colorScheme });
    // axe.run in the page itself (legacy mode): the same rules on the same document. The default mode
    // runs axe in each frame and joins the results in a blank page it opens for each pass, which doubled
    // the pass's CPU here (a new page, axe-core injected twice) for cross-origin frames that neither the
    // page nor the console has (src/ holds no iframe).
    const { violations } = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
    expect(
      violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      `axe in state ${state}, ${colorScheme}`,
    ).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** `<name>.png` in SLOWDNS_SCREENS_DIR, or nothing when it is unset. */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (!screensDir) return;
  await mkdir(screensDir, { recursive: true });
  await page.screenshot({ path: join(screensDir, `${name}.png`), ...options });
}

/**
 * Nothing wider than the screen at the desktop width and at the phone width; with SLOWDNS_SCREENS_DIR,
 * `<name>-<width>.png` of each (full page) and `<name>-<phone width>-dark.png`. The page is left at
 * 1280 × 900, light.
 */
export async function checkWidths(page: Page, name: string, phone: { width: number; height: number }): Promise<void> {
  for (const size of [{ width: 1280, height: 900 }, phone]) {
    await page.setViewportSize(size);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth),
      `${name} at ${size.width} px`,
    ).toBeLessThanOrEqual(size.width);
    await screenshot(page, `${name}-${size.width}`, { fullPage: true });
  }
  if (screensDir) {
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, `${name}-${phone.width}-dark`, { fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/**
 * `expect.poll` of what the page shows, the page's clock moved on a second before each read
 * (BrowserSession.tick): the page's next poll of the service (1 to 5 s away) comes at once. Chain the
 * matcher: `await soon(browser, () => locator.textContent()).toContain('…')`.
 */
export function soon<T>(browser: BrowserSession, read: () => Promise<T>) {
  return expect.poll(
    async () => {
      await browser.tick();
      return read();
    },
    { timeout: 20_000, interval: 100 },
  );
}
