import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithBrowser, openBrowser, serveOverHttp, type BrowserSession, type HttpServer } from '../support/browser.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

describeWithBrowser('the ready-to-paste activate.sh command on /slowdns', () => {
  let t: TestApp | undefined;
  let server: HttpServer | undefined;
  let browser: BrowserSession | undefined;

  beforeAll(async () => {
    server = await serveOverHttp(async (o) => (t = await createTestApp({ PUBLIC_BASE_URL: o })).app);
    browser = await openBrowser(server.origin);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await t?.close();
  });

  it('appears once a code is issued: download, SHA-256 check, and the code in the environment of sh activate.sh run', async () => {
    const page = browser!.page;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server!.origin}/slowdns`, { waitUntil: 'load' });
    await expect.poll(() => page.locator('#installer-command').isVisible()).toBe(false);
    await page.locator('#issue-button').click();
    await expect.poll(() => page.locator('#installer-command').isVisible()).toBe(true);
    const code = (await page.locator('#install-code').textContent()) ?? '';
    const sha256 = createHash('sha256').update(await readFile(new URL('../../clients/shell/activate.sh', import.meta.url))).digest('hex');
    const base = server!.origin;
    expect(await page.locator('#installer-command-text').textContent()).toBe(
      [
        `curl -fsSLo activate.sh ${base}/slowdns/activate.sh \\`,
        `  && echo '${sha256}  activate.sh' | sha256sum -c - \\`,
        `  && SLOWDNS_URL=${base} SLOWDNS_INSTALL_CODE=${code} sh activate.sh run -- ./install.sh`,
      ].join('\n'),
    );
    await page.locator('#installer-command-copy').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain(`SLOWDNS_INSTALL_CODE=${code} sh activate.sh`);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.locator('#issue-button').blur();
    await page.screenshot({ path: `${ARTIFACTS}installer-command-1280.png`, fullPage: true });
    expect(browser!.offOriginRequests()).toEqual([]);
    expect(browser!.errors).toEqual([]);
  });
});
