import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createClient, SlowdnsApiError, type SlowdnsClient } from '../../clients/typescript/src/index.js';
import { installCodes } from '../../src/db/schema.js';
import { describeWithBrowser, openBrowser, serveOverHttp, type BrowserSession, type HttpServer } from '../support/browser.js';
import { INSTALLER_VERSION, machine } from '../support/install-flow.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** Where the screenshots of every state go: SLOWDNS_SCREENS_DIR, or test-artifacts/screens/. */
const SCREENS = process.env.SLOWDNS_SCREENS_DIR ?? fileURLToPath(new URL('../../test-artifacts/screens/', import.meta.url));
const CODE_SHAPE = /^SDNS-SD-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}$/;
/** "Within a few seconds": the page polls every 1 to 5 s. */
const FEW_SECONDS = { timeout: 6_000, interval: 200 };
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
  /** The "Or paste one command on your server" card (installer-command.js). */
  const commandCard = () => page().locator('#installer-command');

  beforeAll(async () => {
    server = await serveOverHttp(async (o) => (t = await createTestApp({ PUBLIC_BASE_URL: o })).app);
    elsewhere = await serveOverHttp(() => ({ fetch: () => new Response(elsewhereHtml, { headers: { 'content-type': 'text/html; charset=utf-8' } }) }));
    browser = await openBrowser(server.origin, { alsoAllow: [elsewhereOrigin()] });
    client = createClient({ baseUrl: server.origin });
    await mkdir(SCREENS, { recursive: true });
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

  const precheck = (code: string) => client.precheck({ install_code: code, ...machine, product: 'slowdns', installer_version: INSTALLER_VERSION });

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

  /** axe-core finds nothing, in light and in dark mode. */
  async function expectAccessible(state: string) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page().emulateMedia({ colorScheme });
      const { violations } = await new AxeBuilder({ page: page() }).analyze();
      expect(
        violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
        `axe in state ${state}, ${colorScheme}`,
      ).toEqual([]);
    }
    await page().emulateMedia({ colorScheme: 'light' });
  }

  /** A state the page is in: axe finds nothing, and its screenshots are taken. */
  async function inState(state: string) {
    await expectAccessible(state);
    await screenshots(state);
  }

  /** page-<state>-1280.png and page-<state>-375.png (and -375-dark), with nothing wider than the screen. */
  async function screenshots(state: string) {
    await page().evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    for (const width of [1280, 375]) {
      await page().setViewportSize({ width, height: width === 375 ? 812 : 900 });
      expect(await page().evaluate(() => document.documentElement.scrollWidth), `${state} at ${width} px`).toBeLessThanOrEqual(width);
      await page().screenshot({ path: `${SCREENS}page-${state}-${width}.png`, fullPage: true });
    }
    await page().emulateMedia({ colorScheme: 'dark' });
    await page().screenshot({ path: `${SCREENS}page-${state}-375-dark.png`, fullPage: true });
    await page().emulateMedia({ colorScheme: 'light' });
    await page().setViewportSize({ width: 1280, height: 900 });
  }

  it('before the first press shows only the button: no empty status band, no steps about a code', async () => {
    await openPage();
    expect(await page().locator('#status').evaluate((el) => el.getBoundingClientRect().height)).toBe(0);
    expect(await page().locator('#next').isHidden()).toBe(true);
    expect(await page().getByText('enter this one').isVisible()).toBe(false);
    expect(await page().locator('#watch').isHidden()).toBe(true);
    await inState('start');
    expect(browser!.errors).toEqual([]);
  }, MANY_STATES_MS);

  it('shows the host and IP within seconds of activate, then "installed" on confirm', async () => {
    const code = await getCode();
    expect(await page().locator('#next').isVisible()).toBe(true);
    expect(await commandCard().isVisible()).toBe(true);
    await inState('issued');

    await precheck(code);
    await expect.poll(() => watchState().textContent(), FEW_SECONDS).toBe(`Checked by a machine (key ${KEY_START}…, from 127.0.0.1). It has not been activated yet.`);
    expect(await page().locator('#machine-id').textContent()).toBe(machine.machine_id.slice(0, 8));
    expect(await page().locator('#machine-key').textContent()).toBe(machine.ssh_fingerprint);
    expect(await page().locator('#machine-host').isHidden()).toBe(true);
    await inState('prechecked');

    const activation = await activate(code);
    const activatedAt = Date.now();
    await expect.poll(() => watchState().textContent(), FEW_SECONDS).toBe(`Activated on host vpn1.example.net (IP 203.0.113.7, key ${KEY_START}…). The install is running.`);
    expect(Date.now() - activatedAt).toBeLessThan(6_000);
    expect(await page().locator('#machine-host').textContent()).toBe('vpn1.example.net');
    expect(await page().locator('#machine-ip').textContent()).toBe('203.0.113.7');
    // What the code's card says follows the watched state, in the same update or (a late poll answer
    // under load) the next: every such check waits as the state's does.
    await expect.poll(() => page().locator('#code-label').textContent(), FEW_SECONDS).toBe('Your install code is in use');
    expect(await page().getByRole('button', { name: 'Not you? Cancel this code' }).isVisible()).toBe(true);
    expect(await commandCard().isHidden()).toBe(true);
    await inState('activated');

    await client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token });
    await expect.poll(() => watchState().textContent(), FEW_SECONDS).toBe('Installed on host vpn1.example.net (IP 203.0.113.7). This code is used up.');
    await expect.poll(() => page().locator('#code-label').textContent(), FEW_SECONDS).toBe('This install code has been used');
    await expect.poll(() => page().locator('#copy-button').isDisabled(), FEW_SECONDS).toBe(true);
    expect(await page().locator('#cancel-area').isHidden()).toBe(true);
    expect(await page().locator('#watch-note').textContent()).toContain('cannot be undone from this page');
    expect(await commandCard().isHidden()).toBe(true);
    await inState('installed');

    // Nothing but this service was asked, and the page never saw the code again after issue.
    expect(browser!.offOriginRequests()).toEqual([]);
    expect(browser!.errors).toEqual([]);
  }, MANY_STATES_MS);

  it('says the code is ready again after a failed install released it', async () => {
    const code = await getCode();
    const activation = await activate(code);
    await expect.poll(() => watchState().textContent(), FEW_SECONDS).toContain('Activated on host vpn1.example.net');
    await expect.poll(() => page().locator('#copy-button').isDisabled(), FEW_SECONDS).toBe(true);

    const released = await client.release({ activation_id: activation.activation_id });
    expect(released.install_code_restored).toBe(true);
    await expect.poll(() => watchState().textContent(), FEW_SECONDS).toBe(
      'The install on host vpn1.example.net failed and was rolled back. The code is ready again: enter it in the installer to retry.',
    );
    await expect.poll(() => page().locator('#code-label').textContent(), FEW_SECONDS).toBe('Your install code');
    await expect.poll(() => page().locator('#copy-button').isDisabled(), FEW_SECONDS).toBe(false);
    await expect.poll(() => page().locator('#countdown').textContent(), FEW_SECONDS).toMatch(/^1[45]:\d\d$/);
    // The code works again, and so does the command that carries it.
    expect(await commandCard().isVisible()).toBe(true);
    await inState('released');
    expect(browser!.errors).toEqual([]);
  }, MANY_STATES_MS);

  it('cancels a code after a confirmation step, by keyboard; precheck then refuses it with install_code_revoked', async () => {
    const code = await getCode();
    await precheck(code);
    await expect.poll(() => watchState().textContent(), FEW_SECONDS).toContain('Checked by a machine');

    const cancelButton = page().getByRole('button', { name: 'Not you? Cancel this code' });
    await cancelButton.focus();
    await page().keyboard.press('Enter');
    expect(await cancelButton.getAttribute('aria-expanded')).toBe('true');
    const confirm = page().getByRole('group', { name: /Cancel this code\?/ });
    expect(await confirm.isVisible()).toBe(true);
    expect(await page().evaluate(() => document.activeElement?.id)).toBe('cancel-yes');
    await inState('cancel-confirm');

    // Escape (or "Keep it") closes the question and changes nothing.
    await page().locator('#cancel-yes').focus();
    await page().keyboard.press('Escape');
    expect(await confirm.isHidden()).toBe(true);
    expect(await page().evaluate(() => document.activeElement?.id)).toBe('cancel-button');
    await page().keyboard.press('Enter');
    await page().keyboard.press('Enter');

    await expect.poll(() => watchState().textContent(), FEW_SECONDS).toBe('Cancelled. No machine can use this code any more.');
    await expect.poll(() => page().locator('#code-label').textContent(), FEW_SECONDS).toBe('This install code was cancelled');
    expect(await page().locator('#cancel-area').isHidden()).toBe(true);
    expect(await page().evaluate(() => document.activeElement?.id)).toBe('watch-state');
    expect(await commandCard().isHidden()).toBe(true);
    await inState('cancelled');

    const refused = await precheck(code).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SlowdnsApiError);
    expect({ status: (refused as SlowdnsApiError).status, code: (refused as SlowdnsApiError).code }).toEqual({ status: 410, code: 'install_code_revoked' });
    expect(browser!.errors).toEqual([]);
  }, MANY_STATES_MS);

  it('takes the paste-one-command card away when the code is cancelled, and brings it back with a new code', async () => {
    const code = await getCode();
    expect(await commandCard().isVisible()).toBe(true);
    expect(await page().locator('#installer-command-text').textContent()).toContain(`SLOWDNS_INSTALL_CODE=${code} `);

    await page().getByRole('button', { name: 'Not you? Cancel this code' }).click();
    await page().getByRole('button', { name: 'Yes, cancel this code' }).click();
    await expect.poll(() => watchState().textContent(), FEW_SECONDS).toBe('Cancelled. No machine can use this code any more.');
    expect(await commandCard().isHidden()).toBe(true);
    expect(await page().getByRole('heading', { name: 'Or paste one command on your server' }).count()).toBe(0);
    await expectAccessible('cancelled-command');

    // The card follows the code it carries: a new code shows it again, with the new code in it.
    await page().getByRole('button', { name: 'Get a new install code' }).click();
    await expect.poll(() => codeText().textContent()).not.toBe(code);
    const next = (await codeText().textContent())!;
    expect(next).toMatch(CODE_SHAPE);
    await expect.poll(() => commandCard().isVisible()).toBe(true);
    expect(await page().locator('#installer-command-text').textContent()).toContain(`SLOWDNS_INSTALL_CODE=${next} `);
    expect(browser!.errors).toEqual([]);
  }, MANY_STATES_MS);

  it('cancels an install in progress: the installer can then neither confirm it nor reuse the code', async () => {
    const code = await getCode();
    const activation = await activate(code);
    await expect.poll(() => watchState().textContent(), FEW_SECONDS).toContain('Activated on host vpn1.example.net');
    await page().getByRole('button', { name: 'Not you? Cancel this code' }).click();
    await page().getByRole('button', { name: 'Yes, cancel this code' }).click();
    await expect.poll(() => watchState().textContent(), FEW_SECONDS).toBe('Cancelled. No machine can use this code any more.');

    const confirmed = await client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token }).catch((error: unknown) => error);
    expect((confirmed as SlowdnsApiError).code).toBe('activation_released');
    expect(((await precheck(code).catch((error: unknown) => error)) as SlowdnsApiError).code).toBe('install_code_revoked');
    expect(browser!.errors).toEqual([]);
  }, MANY_STATES_MS);

  it('shows a second browser none of the first one\'s codes', async () => {
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
  }, MANY_STATES_MS);

  it('refuses a cross-site request to cancel, and the code stays usable', async () => {
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
    const [row] = await t!.database.db.select({ status: installCodes.status }).from(installCodes).where(eq(installCodes.id, id));
    expect(row!.status).toBe('issued');
  }, MANY_STATES_MS);

  it('marks the code expired when its time is up, and says so', async () => {
    await page().clock.install();
    await getCode();
    // Only the page's clock passes the expiry: the service still answers `issued`, and the page must say
    // expired all the same (a slower server clock never brings an expired code back).
    await page().clock.fastForward('15:00');
    // The jump also fires the 20 s timeout of a status request still in flight: the page then asks again
    // after its 2 s error backoff, so give it the few seconds every other state gets.
    await expect.poll(() => watchState().textContent(), FEW_SECONDS).toBe('Expired: no machine activated this code in time, and none can now.');
    expect(await page().locator('#cancel-area').isHidden()).toBe(true);
    expect(await commandCard().isHidden()).toBe(true);
    await inState('expired');
    expect(browser!.errors).toEqual([]);
  }, MANY_STATES_MS);

  it('follows a code still in play after a reload, by its hint (the code itself is shown once)', async () => {
    const code = await getCode();
    const hint = await page().locator('#code-hint').textContent();
    await precheck(code);
    await openPage();
    await expect.poll(() => watchState().textContent(), FEW_SECONDS).toContain('Checked by a machine');
    expect(await page().locator('#watch-hint').textContent()).toBe(hint);
    expect(await page().locator('#result').isHidden()).toBe(true);
    expect(await page().content()).not.toContain(code);
    await inState('resumed');
  }, MANY_STATES_MS);

  it('over the new-session limit, GET /slowdns is a page saying when to come back', async () => {
    t!.clock.set('2026-11-22T10:20:00Z');
    for (let i = 0; i < 30; i++) expect((await fetch(`${origin()}/slowdns`)).status).toBe(200);
    const response = await page().goto(`${origin()}/slowdns`, { waitUntil: 'load' });
    expect(response?.status()).toBe(429);
    expect(response?.headers()['content-type']).toBe('text/html; charset=UTF-8');
    expect(await page().getByRole('heading', { level: 2 }).textContent()).toBe('Come back in 40 minutes');
    expect(await page().getByText('Try again after 11:00 UTC').count()).toBe(1);
    await inState('come-back');
    expect(browser!.errors.filter(provoked(429))).toEqual([]);
  }, MANY_STATES_MS);
});
