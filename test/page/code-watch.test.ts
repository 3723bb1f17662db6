import type { Request } from 'playwright-core';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createClient, SlowdnsApiError, type SlowdnsClient } from '../../clients/typescript/src/index.js';
import { installCodes } from '../../src/db/schema.js';
import {
  describeWithBrowser,
  expectAccessible,
  openBrowser,
  checkWidths,
  serveOverHttp,
  soon,
  type BrowserSession,
  type HttpServer,
} from '../support/browser.js';
import { INSTALLER_VERSION, machine } from '../support/install-flow.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const CODE_SHAPE = /^SDNS-SD-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}$/;
const KEY_START = machine.ssh_fingerprint.slice(0, 19);

/** A test that runs axe and takes screenshots in several states: slower than the default 30 s on a busy machine. */
const MANY_STATES_MS = 180_000;

/** Chromium reports every non-2xx fetch as a console error; those a test provokes on purpose are expected. */
const provoked = (status: number) => (line: string) => !line.includes(`status of ${status}`);

describeWithBrowser('the page follows its code in headless Chromium', () => {
  let t: TestApp | undefined;
  let server: HttpServer | undefined;
  let elsewhere: HttpServer | undefined;
  let browser: BrowserSession | undefined;
  let client: SlowdnsClient;
  /** What the other site serves: a page that tries to cancel a code of this service. */
  let elsewhereHtml = '';
  const elsewhereOrigin = () => elsewhere!.origin.replace('127.0.0.1', 'localhost');

  const origin = () => server!.origin;
  const page = () => browser!.page;
  const watchState = () => page().locator('#watch-state');
  const codeText = () => page().locator('#install-code');

  beforeAll(async () => {
    server = await serveOverHttp(async (o) => (t = await createTestApp({ PUBLIC_BASE_URL: o })).app);
    elsewhere = await serveOverHttp(() => ({
      fetch: () => new Response(elsewhereHtml, { headers: { 'content-type': 'text/html; charset=utf-8' } }),
    }));
    // The page polls every 1 to 5 s: soon() moves its clock on instead of waiting for it.
    browser = await openBrowser(server.origin, { alsoAllow: [elsewhereOrigin()], clock: true });
    client = createClient({ baseUrl: server.origin });
  });
  beforeEach(async () => {
    await t!.reset();
    await browser!.reset({ width: 1280, height: 900 });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await elsewhere?.close();
    await t?.close();
  });

  async function openPage() {
    const response = await page().goto(`${origin()}/slowdns`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
  }

  async function getCode(): Promise<string> {
    await openPage();
    await page().getByRole('button', { name: 'Get an install code' }).click();
    await expect.poll(() => codeText().textContent()).toMatch(CODE_SHAPE);
    await expect.poll(() => watchState().textContent()).toContain('Waiting for the installer');
    return (await codeText().textContent())!;
  }

  const precheck = (code: string) =>
    client.precheck({ install_code: code, ...machine, product: 'slowdns', installer_version: INSTALLER_VERSION });

  async function activate(code: string) {
    const { precheck_token } = await precheck(code);
    return client.activate({
      install_code: code,
      precheck_token,
      hostname: 'vpn1.example.net',
      public_ip: '203.0.113.7',
      ...machine,
      requested_ref: 'main',
      installer_version: INSTALLER_VERSION,
    });
  }

  /** A state the page is in: axe finds nothing, it fits the phone's width (npm run screens: its screenshots). */
  async function inState(state: string) {
    await expectAccessible(page(), state);
    await screenshots(state);
  }

  /** Fits 1280 and 375 px; page-<state>-1280.png and -375.png (and -375-dark) without a focus ring. */
  async function screenshots(state: string) {
    await page().evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await checkWidths(page(), `page-${state}`, { width: 375, height: 812 });
  }

  it(
    'before the first press shows only the button: no empty status band, no steps about a code',
    async () => {
      await openPage();
      expect(
        await page()
          .locator('#status')
          .evaluate((el) => el.getBoundingClientRect().height),
      ).toBe(0);
      expect(await page().locator('#next').isHidden()).toBe(true);
      expect(await page().getByText('enter this one').isVisible()).toBe(false);
      expect(await page().locator('#watch').isHidden()).toBe(true);
      await inState('start');
      expect(browser!.errors).toEqual([]);
    },
    MANY_STATES_MS,
  );

  it(
    'shows the host and IP within seconds of activate, then "installed" on confirm',
    async () => {
      const code = await getCode();
      expect(await page().locator('#next').isVisible()).toBe(true);
      // The activate.sh command is for installer authors (docs/installers.md): a person cannot know what follows `--`.
      expect(await page().getByText('activate.sh').count()).toBe(0);
      await inState('issued');

      await precheck(code);
      await soon(browser!, () => watchState().textContent()).toBe(
        `Checked by a machine (key ${KEY_START}…, from 127.0.0.1). It has not been activated yet.`,
      );
      expect(await page().locator('#machine-id').textContent()).toBe(machine.machine_id.slice(0, 8));
      expect(await page().locator('#machine-key').textContent()).toBe(machine.ssh_fingerprint);
      expect(await page().locator('#machine-host').isHidden()).toBe(true);
      // When, with the date and the time zone (in this browser's own), not only "08:43 PM".
      const checkedAt = page().locator('#machine-when time');
      expect(await checkedAt.count()).toBe(1);
      expect(new Date((await checkedAt.getAttribute('datetime'))!).getFullYear()).toBeGreaterThan(2000);
      expect(await page().locator('#machine-when').textContent()).toMatch(
        /^Checked [A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d [AP]M (UTC|GMT[+-]?[\d:]*|[A-Z]{2,5})$/,
      );
      await inState('prechecked');

      const activation = await activate(code);
      const activatedAt = Date.now();
      await soon(browser!, () => watchState().textContent()).toBe(
        `Activated on host vpn1.example.net (IP 203.0.113.7, key ${KEY_START}…). The install is running.`,
      );
      expect(Date.now() - activatedAt).toBeLessThan(6_000);
      expect(await page().locator('#machine-host').textContent()).toBe('vpn1.example.net');
      expect(await page().locator('#machine-ip').textContent()).toBe('203.0.113.7');
      // What the code's card says follows the watched state, in the same update or (a late poll answer
      // under load) the next: every such check waits as the state's does.
      await soon(browser!, () => page().locator('#code-label').textContent()).toBe('Your install code is in use');
      expect(await page().getByRole('button', { name: 'Not you? Cancel this code' }).isVisible()).toBe(true);
      expect(await page().locator('#machine-when .when-step').allTextContents()).toEqual([
        expect.stringMatching(/^Checked .*\d{4}/),
        expect.stringMatching(/^Activated .*\d{4}/),
      ]);
      await inState('activated');

      await client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token });
      await soon(browser!, () => watchState().textContent()).toBe(
        'Installed on host vpn1.example.net (IP 203.0.113.7). This code is used up.',
      );
      await soon(browser!, () => page().locator('#code-label').textContent()).toBe('This install code has been used');
      await soon(browser!, () => page().locator('#copy-button').isDisabled()).toBe(true);
      expect(await page().locator('#cancel-area').isHidden()).toBe(true);
      expect(await page().locator('#watch-note').textContent()).toContain('cannot be undone from this page');
      await inState('installed');

      // Nothing but this service was asked, and the page never saw the code again after issue.
      expect(browser!.offOriginRequests()).toEqual([]);
      expect(browser!.errors).toEqual([]);
    },
    MANY_STATES_MS,
  );

  it(
    'says the code is ready again after a failed install released it',
    async () => {
      const code = await getCode();
      const activation = await activate(code);
      await soon(browser!, () => watchState().textContent()).toContain('Activated on host vpn1.example.net');
      await soon(browser!, () => page().locator('#copy-button').isDisabled()).toBe(true);

      const released = await client.release({ activation_id: activation.activation_id });
      expect(released.install_code_restored).toBe(true);
      await soon(browser!, () => watchState().textContent()).toBe(
        'The install on host vpn1.example.net failed and was rolled back. The code is ready again: enter it in the installer to retry.',
      );
      await soon(browser!, () => page().locator('#code-label').textContent()).toBe('Your install code');
      await soon(browser!, () => page().locator('#copy-button').isDisabled()).toBe(false);
      await soon(browser!, () => page().locator('#countdown').textContent()).toMatch(/^1[45]:\d\d$/);
      await inState('released');
      expect(browser!.errors).toEqual([]);
    },
    MANY_STATES_MS,
  );

  it(
    'cancels a code by keyboard, after a confirmation step that focuses "Keep it", so that precheck refuses it with install_code_revoked',
    async () => {
      const code = await getCode();
      await precheck(code);
      await soon(browser!, () => watchState().textContent()).toContain('Checked by a machine');

      const cancelButton = page().getByRole('button', { name: 'Not you? Cancel this code' });
      await cancelButton.focus();
      await page().keyboard.press('Enter');
      expect(await cancelButton.getAttribute('aria-expanded')).toBe('true');
      const confirm = page().getByRole('group', { name: /Cancel this code\?/ });
      expect(await confirm.isVisible()).toBe(true);
      // The safe answer has the focus: a second Enter keeps the code.
      expect(await page().evaluate(() => document.activeElement?.id)).toBe('cancel-no');
      await inState('cancel-confirm');

      await page().locator('#cancel-no').focus();
      await page().keyboard.press('Enter');
      expect(await confirm.isHidden()).toBe(true);
      expect(await page().evaluate(() => document.activeElement?.id)).toBe('cancel-button');
      // Escape closes the question too, and changes nothing.
      await page().keyboard.press('Enter');
      await page().keyboard.press('Escape');
      expect(await confirm.isHidden()).toBe(true);
      expect(await page().evaluate(() => document.activeElement?.id)).toBe('cancel-button');
      expect((await t!.database.db.select({ status: installCodes.status }).from(installCodes))[0]!.status).not.toBe(
        'revoked',
      );

      await page().keyboard.press('Enter');
      await page().keyboard.press('Shift+Tab');
      expect(await page().evaluate(() => document.activeElement?.id)).toBe('cancel-yes');
      await page().keyboard.press('Enter');

      await soon(browser!, () => watchState().textContent()).toBe('Cancelled. No machine can use this code any more.');
      await soon(browser!, () => page().locator('#code-label').textContent()).toBe('This install code was cancelled');
      expect(await page().locator('#cancel-area').isHidden()).toBe(true);
      expect(await page().evaluate(() => document.activeElement?.id)).toBe('watch-state');
      await inState('cancelled');

      const refused = await precheck(code).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SlowdnsApiError);
      expect({ status: (refused as SlowdnsApiError).status, code: (refused as SlowdnsApiError).code }).toEqual({
        status: 410,
        code: 'install_code_revoked',
      });
      expect(browser!.errors).toEqual([]);
    },
    MANY_STATES_MS,
  );

  it(
    'keeps a cancelled code cancelled when a status answer sent before the cancel arrives after it',
    async () => {
      const code = await getCode();
      await precheck(code);
      await soon(browser!, () => watchState().textContent()).toContain('Checked by a machine');

      // Hold the next status answer (it says "prechecked") until the cancel has been answered.
      let cancelAnswered!: () => void;
      const afterCancel = new Promise<void>((resolve) => (cancelAnswered = resolve));
      let held!: (request: Request) => void;
      const heldRequest = new Promise<Request>((resolve) => (held = resolve));
      await page().route(`${origin()}/api/v2/slowdns/code/status`, async (route) => {
        const answer = await route.fetch();
        held(route.request());
        await afterCancel;
        await route.fulfill({ response: answer });
      });
      const inFlight = await heldRequest;
      await page().getByRole('button', { name: 'Not you? Cancel this code' }).click();
      const cancelled = page().waitForResponse(`${origin()}/api/v2/slowdns/code/cancel`);
      await page().getByRole('button', { name: 'Yes, cancel this code' }).click();
      await cancelled;
      await soon(browser!, () => watchState().textContent()).toBe('Cancelled. No machine can use this code any more.');

      const finished = page().waitForEvent('requestfinished', (request) => request === inFlight);
      cancelAnswered();
      await finished;
      // The late answer has been read by the page (one more turn of its event loop); the state stays.
      await page().evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
      expect(await watchState().textContent()).toBe('Cancelled. No machine can use this code any more.');
      expect(await page().locator('#code-label').textContent()).toBe('This install code was cancelled');
      expect(await page().locator('#cancel-area').isHidden()).toBe(true);
      expect(browser!.errors).toEqual([]);
    },
    MANY_STATES_MS,
  );

  it(
    'cancels an install in progress: the installer can then neither confirm it nor reuse the code',
    async () => {
      const code = await getCode();
      const activation = await activate(code);
      await soon(browser!, () => watchState().textContent()).toContain('Activated on host vpn1.example.net');
      await page().getByRole('button', { name: 'Not you? Cancel this code' }).click();
      await page().getByRole('button', { name: 'Yes, cancel this code' }).click();
      await soon(browser!, () => watchState().textContent()).toBe('Cancelled. No machine can use this code any more.');

      const confirmed = await client
        .confirm({ activation_id: activation.activation_id, install_token: activation.install_token })
        .catch((error: unknown) => error);
      expect((confirmed as SlowdnsApiError).code).toBe('activation_released');
      expect(((await precheck(code).catch((error: unknown) => error)) as SlowdnsApiError).code).toBe(
        'install_code_revoked',
      );
      expect(browser!.errors).toEqual([]);
    },
    MANY_STATES_MS,
  );

  it(
    "shows a second browser none of the first one's codes",
    async () => {
      await getCode();
      const other = await openBrowser(origin());
      try {
        await other.page.goto(`${origin()}/slowdns`, { waitUntil: 'load' });
        const seen = await other.page.evaluate(async () => (await fetch('/api/v2/slowdns/code/status')).json());
        expect(seen.data.items).toEqual([]);
        expect(await other.page.locator('#watch').isHidden()).toBe(true);
        expect(other.errors).toEqual([]);
      } finally {
        await other.close();
      }
      // The first browser still sees its own.
      const own = await page().evaluate(async () => (await fetch('/api/v2/slowdns/code/status')).json());
      expect(own.data.items).toHaveLength(1);
    },
    MANY_STATES_MS,
  );

  it(
    'refuses a cross-site request to cancel, and the code stays usable',
    async () => {
      await getCode();
      const [{ id } = { id: '' }] = await t!.database.db.select({ id: installCodes.id }).from(installCodes);
      // Another site's page posts to the cancel route, as a form or a no-cors fetch can without asking.
      elsewhereHtml = `<!doctype html><html lang="en"><head><title>elsewhere</title></head><body><script>
      fetch(${JSON.stringify(`${origin()}/api/v2/slowdns/code/cancel`)}, { method: 'POST', mode: 'no-cors', credentials: 'include',
        headers: { 'Content-Type': 'text/plain' }, body: ${JSON.stringify(JSON.stringify({ install_code_id: id }))} });
    </script></body></html>`;
      const answered = page().waitForResponse(`${origin()}/api/v2/slowdns/code/cancel`);
      await page().goto(`${elsewhereOrigin()}/`);
      const answer = await answered;
      // 403 (cross_site_request, test/page/code-cancel.test.ts shows why); the body is gone with the navigation.
      expect(answer.status()).toBe(403);
      const [row] = await t!.database.db
        .select({ status: installCodes.status })
        .from(installCodes)
        .where(eq(installCodes.id, id));
      expect(row!.status).toBe('issued');
    },
    MANY_STATES_MS,
  );

  it(
    'marks the code expired when its time is up, and says so',
    async () => {
      await page().clock.install();
      await getCode();
      // Only the page's clock passes the expiry: the service still answers `issued`, and the page must say
      // expired all the same (a slower server clock never brings an expired code back).
      await page().clock.fastForward('15:00');
      // The jump also fires the 20 s timeout of a status request still in flight: the page then asks again
      // after its 2 s error backoff, so give it the few seconds every other state gets.
      await soon(browser!, () => watchState().textContent()).toBe(
        'Expired: no machine activated this code in time, and none can now.',
      );
      expect(await page().locator('#cancel-area').isHidden()).toBe(true);
      await inState('expired');
      expect(browser!.errors).toEqual([]);
    },
    MANY_STATES_MS,
  );

  it(
    'follows a code still in play after a reload, by its hint (the code itself is shown once)',
    async () => {
      const code = await getCode();
      const hint = await page().locator('#code-hint').textContent();
      await precheck(code);
      await openPage();
      await soon(browser!, () => watchState().textContent()).toContain('Checked by a machine');
      expect(await page().locator('#watch-hint').textContent()).toBe(hint);
      expect(await page().locator('#result').isHidden()).toBe(true);
      expect(await page().content()).not.toContain(code);
      // What the person can do: the code cannot be shown again, so cancel it and get a new one.
      expect(await page().locator('#watch-note').textContent()).toContain(
        'If you no longer have it, cancel it and get a new one.',
      );
      const offer = page().getByRole('button', { name: 'Cancel it and get a new code' });
      expect(await offer.isVisible()).toBe(true);
      await inState('resumed');

      await offer.focus();
      await page().keyboard.press('Enter');
      expect(
        await page()
          .getByRole('group', { name: /Cancel this code and get a new one\?/ })
          .isVisible(),
      ).toBe(true);
      expect(await page().evaluate(() => document.activeElement?.id)).toBe('cancel-no');
      await inState('resumed-confirm');
      await page().getByRole('button', { name: 'Yes, cancel it and get a new one' }).click();

      // A new code, followed and ready to copy; the old one is refused.
      await soon(browser!, () => codeText().textContent()).toMatch(CODE_SHAPE);
      const next = (await codeText().textContent())!;
      expect(next).not.toBe(code);
      await soon(browser!, () => page().locator('#watch-hint').textContent()).toBe(`SDNS-SD-…${next.slice(-6)}`);
      await soon(browser!, () => watchState().textContent()).toContain('Waiting for the installer');
      expect(await page().evaluate(() => document.activeElement?.id)).toBe('copy-button');
      expect(await page().getByRole('button', { name: 'Not you? Cancel this code' }).isVisible()).toBe(true);
      expect(((await precheck(code).catch((error: unknown) => error)) as SlowdnsApiError).code).toBe(
        'install_code_revoked',
      );
      expect(browser!.errors).toEqual([]);
    },
    MANY_STATES_MS,
  );

  it(
    'over the new-session limit, GET /slowdns is a page saying when to come back',
    async () => {
      t!.clock.set('2026-11-22T10:20:00Z');
      for (let i = 0; i < 30; i++) expect((await fetch(`${origin()}/slowdns`)).status).toBe(200);
      const response = await page().goto(`${origin()}/slowdns`, { waitUntil: 'load' });
      expect(response?.status()).toBe(429);
      expect(response?.headers()['content-type']).toBe('text/html; charset=UTF-8');
      expect(await page().getByRole('heading', { level: 2 }).textContent()).toBe('Come back in 40 minutes');
      expect(await page().getByText('Try again after 11:00 UTC').count()).toBe(1);
      await inState('come-back');
      expect(browser!.errors.filter(provoked(429))).toEqual([]);
    },
    MANY_STATES_MS,
  );
});
