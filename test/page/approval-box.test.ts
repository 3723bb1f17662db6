/**
 * "Ask me before a machine can use this code" is decided when a code is issued (DESIGN §14). Once a code is on
 * screen, the box shows that code's choice, fixed, and says which code it speaks for; a tick meant for another
 * code is made in the "Get another code" step, and reaches the new code. In headless Chromium.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { installCodes } from '../../src/db/schema.js';
import {
  describeWithBrowser,
  openBrowser,
  serveOverHttp,
  type BrowserSession,
  type HttpServer,
} from '../support/browser.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describeWithBrowser('the approval box of /slowdns speaks for one code, in headless Chromium', () => {
  let t: TestApp | undefined;
  let server: HttpServer | undefined;
  let browser: BrowserSession | undefined;
  const page = () => browser!.page;
  const box = () => page().locator('#require-approval');
  const scope = () => page().locator('#require-approval-scope');
  const codes = async () => (await t!.database.db.select().from(installCodes)).map((c) => c.requireApproval).sort();

  beforeAll(async () => {
    server = await serveOverHttp(async (o) => (t = await createTestApp({ PUBLIC_BASE_URL: o })).app);
    browser = await openBrowser(server.origin);
  });
  beforeEach(async () => {
    await t!.reset();
    await browser!.reset({ width: 1280, height: 900 });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await t?.close();
  });

  it('a box ticked after the code is shown cannot be ticked: the page says the code on screen does not ask', async () => {
    await page().goto(`${server!.origin}/slowdns`, { waitUntil: 'load' });
    await expect.poll(() => box().isDisabled()).toBe(false);
    await page().locator('#issue-button').click();
    await expect.poll(() => page().locator('#install-code').textContent()).toMatch(/^SDNS-/);

    expect(await box().isDisabled()).toBe(true);
    expect(await box().isChecked()).toBe(false);
    expect(await scope().isVisible()).toBe(true);
    expect(await scope().textContent()).toContain('The code on screen does not ask you first');
    expect(await codes()).toEqual([false]);

    // The choice for another code is made in the step that gets it, and the new code carries it.
    await page().locator('#issue-button').click();
    expect(await box().isDisabled()).toBe(false);
    expect(await scope().textContent()).toBe('Your choice applies to the new code.');
    await box().check();
    await page().locator('#replace-yes').click();
    await expect.poll(codes).toEqual([false, true]);
    await expect.poll(() => scope().textContent()).toContain('The code on screen asks you first');
    expect(await box().isChecked()).toBe(true);
    expect(await box().isDisabled()).toBe(true);
    expect(browser!.errors).toEqual([]);
  });
});
