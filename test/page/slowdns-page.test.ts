import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { SLOWDNS_PAGE_CSP } from '../../src/page/slowdns-page.js';
import {
  describeWithBrowser,
  openBrowser,
  screenshot,
  serveOverHttp,
  type BrowserSession,
  type HttpServer,
} from '../support/browser.js';
import { precheckRequest } from '../support/install-flow.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const ISSUE_PATH = '/api/v2/slowdns/code/issue';
const CODE_SHAPE = /^SDNS-SD-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}$/;

/** Chromium reports every non-2xx fetch as a console error; those a test provokes on purpose are expected. */
const provokedStatus = (status: number) => (line: string) => !line.includes(`status of ${status}`);

describeWithBrowser('the /slowdns page in headless Chromium', () => {
  let t: TestApp | undefined;
  let server: HttpServer | undefined;
  let browser: BrowserSession | undefined;

  const origin = () => server!.origin;
  const page = () => browser!.page;
  const codeText = () => page().locator('#install-code');
  // The issue's own live region (the code's watch has another: test/page/code-watch.test.ts).
  const statusLine = () => page().locator('#status');

  async function openPage() {
    const response = await page().goto(`${origin()}/slowdns`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    return response!;
  }

  /** Presses the action (saying yes when asked to replace a code still in play) and waits for a code other than the one on screen. */
  async function getCode(): Promise<string> {
    const before = (await codeText().textContent()) ?? '';
    await page().locator('#issue-button').click();
    if (before) await page().getByRole('button', { name: 'Yes, get a new code' }).click();
    await expect.poll(async () => (await codeText().textContent()) ?? '').not.toBe(before);
    return (await codeText().textContent()) ?? '';
  }

  beforeAll(async () => {
    server = await serveOverHttp(async (o) => (t = await createTestApp({ PUBLIC_BASE_URL: o })).app);
    browser = await openBrowser(server.origin);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  });
  beforeEach(async () => {
    await t!.database.reset();
    t!.clock.set('2026-11-22T10:00:00.000Z');
    await browser!.reset({ width: 1280, height: 800 });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await t?.close();
  });

  it('shows a code of the right shape that precheck then accepts, with nothing leaving the service', async () => {
    const response = await openPage();
    expect(response.headers()['cache-control']).toBe('no-store');
    expect(response.headers()['referrer-policy']).toBe('no-referrer');
    expect(response.headers()['x-content-type-options']).toBe('nosniff');
    expect(response.headers()['content-security-policy']).toBe(SLOWDNS_PAGE_CSP);

    const issueRequest = page().waitForRequest(`${origin()}${ISSUE_PATH}`);
    const issueResponse = page().waitForResponse(`${origin()}${ISSUE_PATH}`);
    await page().getByRole('button', { name: 'Get an install code' }).click();
    const sent = await issueRequest;
    expect(sent.method()).toBe('POST');
    expect(sent.headers()['content-type']).toBe('application/json');
    const { browser_signal } = sent.postDataJSON();
    expect(typeof browser_signal).toBe('string');
    expect(browser_signal.length).toBeGreaterThan(0);
    expect(browser_signal.length).toBeLessThanOrEqual(512);
    const answered = await issueResponse;
    expect(answered.status()).toBe(201);
    expect(answered.headers()['cache-control']).toBe('no-store');

    await expect.poll(() => codeText().textContent()).toMatch(CODE_SHAPE);
    const code = (await codeText().textContent())!;
    await expect.poll(() => statusLine().textContent()).toContain('Your install code is ready');
    // Labelled for screen readers: the code sits in a group named by its visible label.
    expect(
      await page().getByRole('group', { name: 'Your install code' }).getByText(code, { exact: true }).count(),
    ).toBe(1);
    expect(await page().getByRole('button', { name: 'Copy code' }).count()).toBe(1);
    expect(await page().locator('#code-hint').textContent()).toBe(`SDNS-SD-…${code.slice(-6)}`);
    expect(await page().locator('#countdown').textContent()).toMatch(/^1[45]:\d\d$/);
    expect(await page().getByText('run the SlowDNS installer').count()).toBe(1);
    // Not asked for: no step about approving a machine.
    expect(await page().locator('#next-approve').isHidden()).toBe(true);

    const precheck = await precheckRequest(t!, code);
    expect(precheck.status).toBe(200);
    expect((await precheck.json()).data.install_code).toBe(code);

    expect(browser!.errors).toEqual([]);
    expect(browser!.offOriginRequests()).toEqual([]);
    expect(new Set(browser!.requests.map((url) => new URL(url).pathname))).toEqual(
      new Set([
        '/slowdns',
        '/slowdns/page-kit.js',
        '/slowdns/app.js',
        '/slowdns/watch.js',
        '/slowdns/approval.js',
        '/slowdns/app.css',
        ISSUE_PATH,
        '/api/v2/slowdns/code/status',
      ]),
    );
  });

  it('keeps the session cookie HttpOnly and SameSite=Lax, out of reach of the page script', async () => {
    await openPage();
    const cookies = await browser!.context.cookies(origin());
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite, path: c.path }))).toEqual([
      { name: 'slowdns_browser', httpOnly: true, sameSite: 'Lax', path: '/' },
    ]);
    expect(await page().evaluate(() => document.cookie)).toBe('');
    expect(browser!.errors).toEqual([]);
  });

  it('says on the third press within the hour that the limit is reached and how long to wait', async () => {
    // 12 minutes before the hour bucket ends: Retry-After is 720 seconds.
    t!.clock.set('2026-11-22T10:48:00.000Z');
    await openPage();
    const first = await getCode();
    const second = await getCode();
    expect(second).not.toBe(first);

    const refused = page().waitForResponse(`${origin()}${ISSUE_PATH}`);
    await page().locator('#issue-button').click();
    await page().getByRole('button', { name: 'Yes, get a new code' }).click();
    const answer = await refused;
    expect(answer.status()).toBe(429);
    expect(answer.headers()['retry-after']).toBe('720');
    await expect
      .poll(() => statusLine().textContent())
      .toContain('You have reached the limit of install codes for now. Try again in about 12 minutes.');
    // The code already on screen is still good and stays.
    expect(await codeText().textContent()).toBe(second);
    expect(browser!.errors.filter(provokedStatus(429))).toEqual([]);
    expect(browser!.offOriginRequests()).toEqual([]);
  });

  it('works by keyboard alone: Tab to the action, Enter, and a second Enter copies the code (the copy action has the focus)', async () => {
    await openPage();
    // First the language picker's links (one Tab each), then the choice
    for (let link = 0; link < 8; link++) await page().keyboard.press('Tab');
    expect(await page().evaluate(() => document.activeElement?.closest('nav')?.className)).toBe('languages');
    await page().keyboard.press('Tab');
    const focused = () => page().evaluate(() => document.activeElement?.id);
    // Then the choice "Ask me before a machine can use this code" (test/page/approval.test.ts), then the action.
    expect(await focused()).toBe('require-approval');
    await page().keyboard.press('Tab');
    expect(await focused()).toBe('issue-button');
    // A visible focus ring on the focused control.
    const ring = await page().evaluate(() => {
      const style = getComputedStyle(document.activeElement!);
      return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
    });
    expect(ring.style).not.toBe('none');
    expect(ring.width).toBeGreaterThanOrEqual(2);

    await page().keyboard.press('Enter');
    await expect.poll(() => codeText().textContent()).toMatch(CODE_SHAPE);
    const code = (await codeText().textContent())!;

    // Copying is now the main action; getting another code stepped back to a secondary button.
    await expect.poll(focused).toBe('copy-button');
    expect(await page().locator('#copy-button').getAttribute('class')).toContain('primary');
    expect(await page().locator('#issue-button').getAttribute('class')).not.toContain('primary');
    await page().keyboard.press('Enter');
    await expect.poll(() => statusLine().textContent()).toBe('Install code copied to the clipboard.');
    expect(await page().locator('#copy-button').textContent()).toBe('Copied');
    expect(await page().evaluate(() => navigator.clipboard.readText())).toBe(code);
    expect(browser!.errors).toEqual([]);
  });

  it('asks before replacing a code still in play: "Keep this code" has the focus and keeps it, "Yes, get a new code" replaces it', async () => {
    await openPage();
    const first = await getCode();
    const issue = page().getByRole('button', { name: 'Get another code' });
    await issue.focus();
    await page().keyboard.press('Enter');
    const question = page().getByRole('group', { name: /Replace the code on screen\?/ });
    expect(await question.isVisible()).toBe(true);
    expect(await issue.getAttribute('aria-expanded')).toBe('true');
    const focused = () => page().evaluate(() => document.activeElement?.id);
    expect(await focused()).toBe('replace-no');

    // A second Enter keeps the code: nothing was asked of the service.
    const asked: string[] = [];
    page().on('request', (request) => {
      if (request.url().endsWith(ISSUE_PATH)) asked.push(request.url());
    });
    await page().keyboard.press('Enter');
    expect(await question.isHidden()).toBe(true);
    expect(await focused()).toBe('issue-button');
    expect(await codeText().textContent()).toBe(first);
    // Escape keeps it too.
    await page().keyboard.press('Enter');
    await page().keyboard.press('Escape');
    expect(await question.isHidden()).toBe(true);
    expect(asked).toEqual([]);

    await page().keyboard.press('Enter');
    await page().getByRole('button', { name: 'Yes, get a new code' }).click();
    await expect.poll(() => codeText().textContent()).not.toBe(first);
    expect(await codeText().textContent()).toMatch(CODE_SHAPE);
    expect(asked).toHaveLength(1);
    await expect.poll(focused).toBe('copy-button');
    expect(browser!.errors).toEqual([]);
  });

  it('tells the person to reload the page when the session is gone', async () => {
    await openPage();
    await browser!.context.clearCookies();
    await page().locator('#issue-button').click();
    await expect
      .poll(() => statusLine().textContent())
      .toContain('Your browser session is missing or has expired. Reload the page');
    expect(await statusLine().getByRole('link', { name: 'Reload the page' }).getAttribute('href')).toBe('/slowdns');
    expect(await page().locator('#result').isHidden()).toBe(true);
    expect(browser!.errors.filter(provokedStatus(403))).toEqual([]);
  });

  it('says the service cannot be reached when the request fails', async () => {
    await openPage();
    await page().route(`${origin()}${ISSUE_PATH}`, (route) => route.abort('connectionrefused'));
    await page().locator('#issue-button').click();
    await expect
      .poll(() => statusLine().textContent())
      .toBe('The SlowDNS service could not be reached. Check your connection and try again.');
  });

  it('marks the code expired when the countdown reaches zero and offers a new one', async () => {
    await page().clock.install();
    await openPage();
    const first = await getCode();
    await page().clock.fastForward('15:00');
    await expect.poll(() => page().locator('#countdown').textContent()).toBe('expired');
    expect(await page().locator('#code-label').textContent()).toBe('This install code has expired');
    expect(await page().locator('#copy-button').isDisabled()).toBe(true);
    expect(await statusLine().textContent()).toBe(
      'Your install code has expired. Get a new one with the button above.',
    );

    await page().getByRole('button', { name: 'Get a new install code' }).click();
    await expect.poll(() => codeText().textContent()).not.toBe(first);
    expect(await codeText().textContent()).toMatch(CODE_SHAPE);
    expect(await page().locator('#copy-button').isDisabled()).toBe(false);
    expect(browser!.errors).toEqual([]);
  });

  it('runs under its Content-Security-Policy, which refuses inline script', async () => {
    const response = await openPage();
    expect(response.headers()['content-security-policy']).toBe(SLOWDNS_PAGE_CSP);
    await getCode();
    expect(browser!.errors).toEqual([]);

    const ranInline = await page().evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'document.documentElement.dataset.inline = "ran"';
      document.body.append(script);
      return document.documentElement.dataset.inline ?? 'blocked';
    });
    expect(ranInline).toBe('blocked');
    await expect.poll(() => browser!.errors.join('\n')).toContain('Content Security Policy');
  });

  it('with a code, fits 375 px and keeps the code on one line', async () => {
    await openPage();
    await getCode();
    await page().locator('#issue-button').blur();
    await screenshot(page(), 'slowdns-desktop-1280x800');

    await page().setViewportSize({ width: 375, height: 740 });
    expect(await page().evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    // The code stays on one line at phone width.
    const codeLines = await codeText().evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return range.getClientRects().length;
    });
    expect(codeLines).toBe(1);
    await screenshot(page(), 'slowdns-phone-375x740', { fullPage: true });

    await page().emulateMedia({ colorScheme: 'dark' });
    await screenshot(page(), 'slowdns-phone-375x740-dark', { fullPage: true });
    expect(browser!.errors).toEqual([]);
  });
});
