/**
 * The page in each of its languages (DESIGN §30), in headless Chromium: a person picks the language with its
 * link, asks for a code that waits for their approval, the installer prechecks, the person approves on the
 * page, the install is confirmed, and the page says so in that language; axe finds nothing in each. In the
 * pseudo-locale, no word on the page in any of these states comes from anywhere but the catalog.
 * `npm run screens` also writes the right-to-left and Chinese pages at 390 and 1280 px.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createClient, type SlowdnsClient } from '../../../clients/typescript/src/index.js';
import { loadPageLanguages, type PageLanguage } from '../../../src/page/i18n/page-languages.js';
import {
  describeWithBrowser,
  expectAccessible,
  openBrowser,
  screenshot,
  serveOverHttp,
  soon,
  type BrowserSession,
  type HttpServer,
} from '../../support/browser.js';
import { INSTALLER_VERSION, machine } from '../../support/install-flow.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const CODE_SHAPE = /^SDNS-SD-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}$/;
const HOST = 'vpn1.example.net';
const IP = '203.0.113.7';
const PER_LANGUAGE_MS = 180_000;
const SCREENSHOT_LANGUAGES = ['fa', 'ar', 'zh-Hans'];

/** A catalog message with its placeholders filled, as the page writes it (no plural message is used here). */
const say = (language: PageLanguage, key: string, values: Record<string, string> = {}) =>
  (language.messages[key] as string).replace(/\{([a-zA-Z]+)\}/g, (_, name: string) => values[name]!);

describeWithBrowser('the page in each of its languages, in headless Chromium', () => {
  let t: TestApp | undefined;
  let server: HttpServer | undefined;
  let browser: BrowserSession | undefined;
  let client: SlowdnsClient;
  const page = () => browser!.page;
  const origin = () => server!.origin;

  beforeAll(async () => {
    server = await serveOverHttp(async (o) => (t = await createTestApp({ PUBLIC_BASE_URL: o })).app);
    browser = await openBrowser(server.origin, { clock: true });
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
    client = createClient({ baseUrl: server.origin });
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

  /** At 390 and 1280 px, full page, for the languages a person looks at (npm run screens). */
  async function screens(language: PageLanguage, state: string) {
    if (!SCREENSHOT_LANGUAGES.includes(language.tag)) return;
    await page().evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    for (const width of [390, 1280]) {
      await page().setViewportSize({ width, height: width === 390 ? 844 : 900 });
      expect(
        await page().evaluate(() => document.documentElement.scrollWidth),
        `${state} at ${width}`,
      ).toBeLessThanOrEqual(width);
      await screenshot(page(), `page-${language.tag}-${state}-${width}`, { fullPage: true });
    }
    await page().setViewportSize({ width: 1280, height: 900 });
  }

  /** Picks the language with its link on the English page, asks for a code that waits for approval. */
  async function codeAskingFirst(language: PageLanguage): Promise<string> {
    expect((await page().goto(`${origin()}/slowdns`, { waitUntil: 'load' }))?.status()).toBe(200);
    await page().getByRole('link', { name: language.name, exact: true }).click();
    await page().waitForURL(`**/slowdns?lang=${language.tag}`);
    expect(await page().evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([
      language.tag,
      language.dir,
    ]);
    await expectAccessible(page(), `${language.tag} start`);
    await screens(language, 'start');
    await page()
      .getByRole('checkbox', { name: say(language, 'page.askFirst') })
      .check();
    await page()
      .getByRole('button', { name: say(language, 'code.issue') })
      .click();
    await expect.poll(() => page().locator('#install-code').textContent()).toMatch(CODE_SHAPE);
    return (await page().locator('#install-code').textContent())!;
  }

  for (const language of loadPageLanguages()) {
    it(
      `${language.tag}: picked by its link, issues a code and follows it through approval to installed, axe finds nothing`,
      async () => {
        const code = await codeAskingFirst(language);
        // The code reads left to right in every page, and one click copies it.
        expect(
          await page()
            .locator('#install-code')
            .evaluate((el) => getComputedStyle(el).direction),
        ).toBe('ltr');
        await page()
          .getByRole('button', { name: say(language, 'page.copy') })
          .click();
        await expect.poll(() => page().evaluate(() => navigator.clipboard.readText())).toBe(code);
        await expect.poll(() => page().locator('#status').textContent()).toBe(say(language, 'code.copiedSay'));
        await expectAccessible(page(), `${language.tag} issued`);
        await screens(language, 'issued');

        // The installer checks the code; the page asks the person, in their language.
        const { precheck_token } = await client.precheck({
          install_code: code,
          ...machine,
          product: 'slowdns',
          installer_version: INSTALLER_VERSION,
        });
        const approve = page().getByRole('button', { name: say(language, 'approval.approve'), exact: true });
        await soon(browser!, () => approve.isVisible()).toBe(true);
        expect(await page().locator('#watch-state').textContent()).toBe(say(language, 'watch.asking'));
        const address = page().locator('[data-part="address"]');
        expect(await address.textContent()).toBe('127.0.0.1');
        expect(await address.evaluate((el) => getComputedStyle(el).direction)).toBe('ltr');
        // One click on the address selects all of it, to copy.
        await address.click();
        expect(await page().evaluate(() => window.getSelection()?.toString().trim())).toBe('127.0.0.1');
        await expectAccessible(page(), `${language.tag} asking`);
        await screens(language, 'asking');
        await approve.click();
        await soon(browser!, () => page().locator('#watch-state').textContent()).toBe(say(language, 'watch.approved'));

        const activation = await client.activate({
          install_code: code,
          precheck_token,
          hostname: HOST,
          public_ip: IP,
          ...machine,
          requested_ref: 'main',
          installer_version: INSTALLER_VERSION,
        });
        await client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token });
        const host = say(language, 'watch.hostNamed', { hostname: HOST });
        await soon(browser!, () => page().locator('#watch-state').textContent()).toBe(
          say(language, 'watch.installedIp', { host, ip: IP }),
        );
        // The host and the IP inside the sentence are isolated left to right.
        expect(await page().locator('#watch-state bdi[dir="ltr"]').allTextContents()).toEqual([HOST, IP]);
        expect(await page().locator('#code-label').textContent()).toBe(say(language, 'code.usedLabel'));
        await page().locator('#machine-ip').click();
        expect(await page().evaluate(() => window.getSelection()?.toString().trim())).toBe(IP);
        await expectAccessible(page(), `${language.tag} installed`);
        await screens(language, 'installed');
        expect(browser!.errors).toEqual([]);
        expect(browser!.offOriginRequests()).toEqual([]);
      },
      PER_LANGUAGE_MS,
    );
  }

  /**
   * Every text of the page (hidden ones too) and every label an assistive technology reads, less what comes from
   * the catalog (in ⟦ ⟧, nested when a message holds another) and what is not words of the page: the values that
   * read left to right (the code, addresses, keys), times Intl wrote, the product's name, the picker's language
   * names. What is left holds no ASCII letter unless a word was written into the page outside the catalog.
   */
  const wordsOutsideTheCatalog = () =>
    page().evaluate(() => {
      const copy = document.body.cloneNode(true) as HTMLElement;
      for (const skip of copy.querySelectorAll('[dir="ltr"], time, .product, nav.languages a, template, noscript'))
        skip.remove();
      // With scripts on, a <noscript> is raw text: its words are read from a parse of their own.
      const noscript = [...document.querySelectorAll('noscript')].map(
        (el) => new DOMParser().parseFromString(el.textContent ?? '', 'text/html').body.textContent ?? '',
      );
      const labels = [...document.querySelectorAll('[aria-label], [title], [placeholder], [alt]')].flatMap((el) =>
        ['aria-label', 'title', 'placeholder', 'alt'].map((name) => el.getAttribute(name) ?? ''),
      );
      const templates = [...document.querySelectorAll('template')].map((tpl) => {
        const content = tpl.content.cloneNode(true) as DocumentFragment;
        for (const skip of content.querySelectorAll('[dir="ltr"]')) skip.remove();
        return content.textContent ?? '';
      });
      const title = document.title.replace(/^SlowDNS · /, '');
      return [copy.textContent ?? '', title, ...labels, ...templates, ...noscript].flatMap((text) => {
        let rest = text;
        for (let before = ''; before !== rest; ) {
          before = rest;
          rest = rest.replace(/⟦[^⟦⟧]*⟧/g, '');
        }
        return rest.match(/[A-Za-z]{2,}[^⟦]{0,30}/g) ?? [];
      });
    });

  it(
    'in the pseudo-locale (en-XA), says nothing that does not come from the catalog, in any state',
    async () => {
      expect((await page().goto(`${origin()}/slowdns?lang=en-XA`, { waitUntil: 'load' }))?.status()).toBe(200);
      // The brand, once, is the only English the check lets through; the pseudo-locale is not in the picker.
      expect(await page().locator('nav.languages a').count()).toBe(8);
      expect(await wordsOutsideTheCatalog()).toEqual([]);
      await page().locator('#require-approval').check();
      await page().locator('#issue-button').click();
      await expect.poll(() => page().locator('#install-code').textContent()).toMatch(CODE_SHAPE);
      const code = (await page().locator('#install-code').textContent())!;
      await expect.poll(() => page().locator('#status').textContent()).toContain('⟦');
      expect(await wordsOutsideTheCatalog()).toEqual([]);
      await page().locator('#copy-button').click();
      await page().locator('#issue-button').click();
      expect(await page().locator('#replace-confirm').isVisible()).toBe(true);
      expect(await wordsOutsideTheCatalog()).toEqual([]);
      await page().locator('#replace-no').click();

      const { precheck_token } = await client.precheck({
        install_code: code,
        ...machine,
        product: 'slowdns',
        installer_version: INSTALLER_VERSION,
      });
      await soon(browser!, () => page().locator('[data-part="approve"]').first().isVisible()).toBe(true);
      await page().locator('[data-part="deny"]').first().click();
      expect(await wordsOutsideTheCatalog()).toEqual([]);
      await page().locator('[data-part="deny-no"]').first().click();
      await page().locator('[data-part="approve"]').first().click();
      await soon(browser!, () => page().locator('.approval').first().getAttribute('data-approval')).toBe('approved');
      expect(await wordsOutsideTheCatalog()).toEqual([]);

      const activation = await client.activate({
        install_code: code,
        precheck_token,
        hostname: HOST,
        public_ip: IP,
        ...machine,
        requested_ref: 'main',
        installer_version: INSTALLER_VERSION,
      });
      await soon(browser!, () => page().locator('#watch').getAttribute('data-state')).toBe('activated');
      await page().locator('#cancel-button').click();
      expect(await wordsOutsideTheCatalog()).toEqual([]);
      await page().locator('#cancel-no').click();
      await client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token });
      await soon(browser!, () => page().locator('#watch').getAttribute('data-state')).toBe('installed');
      expect(await wordsOutsideTheCatalog()).toEqual([]);
      // A refusal of the API, in the page's words: the session is gone and the page asks for a code.
      await browser!.context.clearCookies({ name: 'slowdns_browser' });
      await page().locator('#issue-button').click();
      await expect.poll(() => page().locator('#status').getAttribute('data-tone')).toBe('error');
      expect(await wordsOutsideTheCatalog()).toEqual([]);

      // The come-back page, over the new-session limit.
      t!.clock.set('2026-11-22T10:20:00Z');
      for (let i = 0; i < 30; i++) await fetch(`${origin()}/slowdns`);
      expect((await page().goto(`${origin()}/slowdns`, { waitUntil: 'load' }))?.status()).toBe(429);
      expect(await page().evaluate(() => document.documentElement.lang)).toBe('en-XA');
      expect(await wordsOutsideTheCatalog()).toEqual([]);
      expect(browser!.errors.filter((line) => !/status of (403|429)/.test(line))).toEqual([]);
    },
    PER_LANGUAGE_MS,
  );
});
