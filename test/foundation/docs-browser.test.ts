import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeWithBrowser,
  openBrowser,
  serveOverHttp,
  type BrowserSession,
  type HttpServer,
} from '../support/browser.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describeWithBrowser('the /docs reference in headless Chromium', () => {
  let t: TestApp | undefined;
  let server: HttpServer | undefined;
  let browser: BrowserSession | undefined;

  beforeAll(async () => {
    server = await serveOverHttp(async (origin) => (t = await createTestApp({ PUBLIC_BASE_URL: origin })).app);
    browser = await openBrowser(server.origin);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await t?.close();
  });

  it('renders the API title, and the health operation once its tag is opened, with no request leaving the service', async () => {
    const { page } = browser!;
    // Scalar checks the document it loads and warns about each schema it refuses (e.g. a typeless union).
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    const response = await page.goto(`${server!.origin}/docs`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("connect-src 'self'");

    // The server-rendered shell paints first and holds the same title: Scalar has taken over once it is gone.
    await page.locator('.reference-shell').waitFor({ state: 'detached', timeout: 20_000 });
    await page.getByText('Download OpenAPI Document').first().waitFor({ timeout: 20_000 });
    await page.getByRole('heading', { name: 'SlowDNS activation service' }).first().waitFor({ timeout: 20_000 });
    // Every tag starts collapsed: its operations render once it is opened from the sidebar.
    await page.getByRole('button', { name: 'health Open Group' }).click();
    await page.getByRole('heading', { name: 'Health check' }).first().waitFor({ timeout: 20_000 });
    // Let late loaders (fonts, telemetry, lazy chunks) fire before counting requests.
    await page.waitForLoadState('networkidle');

    expect(browser!.offOriginRequests()).toEqual([]);
    expect(browser!.requests).toContain(`${server!.origin}/openapi.json`);
    // The page names its icon (an empty data: URL): the browser asks for no /favicon.ico, so no 404.
    expect(browser!.requests).not.toContain(`${server!.origin}/favicon.ico`);
    // The CSP of /docs blocks a foreign load before it reaches the network, so such an attempt shows up
    // here as a console error ("violates the following Content Security Policy directive").
    expect(browser!.errors).toEqual([]);
    expect(warnings.filter((warning) => warning.includes('document validation errors'))).toEqual([]);
  });

  it('keeps the server-rendered outline, operations included, when Scalar never renders', async () => {
    const { page } = browser!;
    await page.route('**/docs/scalar.js*', (route) => route.abort());
    try {
      await page.goto(`${server!.origin}/docs`, { waitUntil: 'load' });
      const shell = page.locator('.reference-shell');
      await shell.getByRole('heading', { name: 'SlowDNS activation service' }).waitFor();
      await shell.getByText('Health check').waitFor();
      await shell.getByRole('link', { name: 'Download OpenAPI Document' }).waitFor();
      expect(await shell.isVisible()).toBe(true);
    } finally {
      await page.unroute('**/docs/scalar.js*');
    }
  });
});
