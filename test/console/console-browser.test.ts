import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import {
  describeWithBrowser,
  expectAccessible,
  openBrowser,
  screenshot,
  serveOverHttp,
  type BrowserSession,
  type HttpServer,
} from '../support/browser.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { seedFleet } from './console-fleet.js';
import { ADMIN_TOKEN, mintToken } from './console-support.js';
import { decisionRequest, issueWithApproval, precheckWaiting } from '../support/approval-flow.js';
import { machine, newBrowser, otherMachine } from '../support/install-flow.js';

/** A code issued with approval, prechecked by two machines (one over IPv6), the second approved: its id. */
async function codeWithPrechecks(t: TestApp): Promise<string> {
  const browser = await newBrowser(t);
  const issued = await issueWithApproval(t, browser);
  await precheckWaiting(t, issued.code, machine, '192.0.2.44');
  const second = await precheckWaiting(t, issued.code, otherMachine, '2001:db8:85a3:8d3:1319:8a2e:370:7348');
  expect((await decisionRequest(t, 'approve', browser, issued.id, second.precheckId)).status).toBe(200);
  return issued.id;
}

/** Tests that run axe and take screenshots over many views: slower than the default on a busy machine. */
const MANY_VIEWS_MS = 240_000;
/** axe and the phone width's check for each of several views, on a machine other tests share. */
const ALL_VIEWS_MS = 600_000;
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

describeWithBrowser('the operator console in headless Chromium', () => {
  let t: TestApp | undefined;
  let server: HttpServer | undefined;
  let browser: BrowserSession | undefined;
  let tokens: { alice: string; viewer: string };
  const page = () => browser!.page;
  const origin = () => server!.origin;

  beforeAll(async () => {
    server = await serveOverHttp(
      async (o) =>
        (t = await createTestApp({
          PUBLIC_BASE_URL: o,
          ADMIN_TOKEN,
          RATE_LIMIT_PROFILE: 'development',
          WEBHOOK_ALLOW_HTTP: 'true',
          WEBHOOK_ALLOW_PRIVATE: 'true',
        })).app,
    );
    browser = await openBrowser(server.origin);
  });
  beforeEach(async () => {
    await t!.reset();
    await browser!.reset(DESKTOP);
    tokens = {
      alice: (await mintToken(t!, 'alice', 'write')).token,
      viewer: (await mintToken(t!, 'viewer', 'read')).token,
    };
    await seedFleet(t!);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await t?.close();
  });

  /** Signs in through the form, by keyboard: the token typed, Enter. */
  async function signIn(token: string) {
    await page().goto(`${origin()}/admin`);
    await page().getByLabel('Operator token').fill(token);
    await Promise.all([
      page().waitForResponse((res) => res.url().endsWith('/admin/sign-in')),
      page().keyboard.press('Enter'),
    ]);
    await page()
      .locator('.console-who')
      .waitFor({ timeout: 10_000 })
      .catch(async (error) => {
        throw new Error(`not signed in: ${page().url()} ${await page().textContent('main')}`, { cause: error });
      });
  }

  /**
   * Readable at 390 px without scrolling sideways: how far the page is wider than the screen, and each table
   * (or the box around it) that is wider than its own box.
   */
  async function sidewaysAt390(): Promise<{ page: number; tables: string[] }> {
    return page().evaluate(() => {
      const scrolling = document.scrollingElement!;
      const tables = [...document.querySelectorAll('table, .table-wrap')]
        .filter((el) => el.scrollWidth > el.clientWidth || el.getBoundingClientRect().right > scrolling.clientWidth)
        .map(
          (el) =>
            `${el.tagName.toLowerCase()} ${el.getAttribute('aria-label') ?? ''}: ${el.scrollWidth} > ${el.clientWidth}`,
        );
      return { page: Math.max(0, scrolling.scrollWidth - scrolling.clientWidth), tables };
    });
  }

  async function screenshots(name: string) {
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['390', PHONE],
    ] as const) {
      await page().setViewportSize(viewport);
      await screenshot(page(), `console-${name}-${size}`, { fullPage: true });
      if (size === '390') expect({ name, ...(await sidewaysAt390()) }).toEqual({ name, page: 0, tables: [] });
    }
    await page().setViewportSize(DESKTOP);
  }

  it(
    'signs in, shows the overview with its chart, finds an activation by part of its host name, and releases it with a reason',
    async () => {
      await signIn(tokens.alice);
      const chart = page().locator('figure.chart svg[role="img"]');
      await expect.poll(() => chart.count()).toBe(1);
      expect(await page().locator('figure.chart rect').count()).toBeGreaterThan(10);
      expect(await page().locator('#chart-summary').textContent()).toMatch(
        /\d+ confirmed, \d+ released, \d+ waiting for confirm/,
      );
      // The counts: codes issued, machines waiting for approval, activations waiting, deliveries waiting, and
      // servers by each health.
      expect(await page().locator('.tile').count()).toBe(8);
      expect(
        await page()
          .locator('.tile', { hasText: 'activations waiting for confirm' })
          .locator('.tile-value')
          .textContent(),
      ).toBe('1');

      await page().keyboard.press('/');
      expect(await page().evaluate(() => document.activeElement?.id)).toBe('q');
      await page().keyboard.type('amsterdam');
      await page().keyboard.press('Enter');
      await page().waitForURL(/\/admin\/search\?q=amsterdam$/);
      const hit = page().getByRole('link', { name: /^act_/ });
      await expect.poll(() => hit.count()).toBe(1);
      await hit.focus();
      await page().keyboard.press('Enter');
      await page().waitForURL(/\/admin\/activations\/act_[0-9a-f]{16}$/);
      expect(await page().locator('h1').textContent()).toBe('Activation on vpn-amsterdam-3.example.net');

      const summary = page().locator('details.action summary');
      await summary.focus();
      await page().keyboard.press('Enter');
      expect(await page().locator('.confirm-question').textContent()).toContain(
        'Release the activation on vpn-amsterdam-3.example.net (198.51.100.23)',
      );
      await page()
        .getByLabel(/^Reason/)
        .fill('Ticket 4321: the customer reinstalls');
      await page().keyboard.press('Enter');
      await page().waitForURL(/\?done=released$/);
      expect(await page().locator('.status[role="status"]').textContent()).toContain('Released.');
      const released = page().locator('tr', { hasText: 'activation.released' });
      expect(await released.textContent()).toContain('by alice');
      expect(await released.textContent()).toContain('Ticket 4321: the customer reinstalls');
      expect(browser!.offOriginRequests()).toEqual([]);
      expect(browser!.errors).toEqual([]);
    },
    MANY_VIEWS_MS,
  );

  it(
    'shows a read-scope session no action and refuses its forged POST',
    async () => {
      await signIn(tokens.viewer);
      await page().goto(`${origin()}/admin/activations?status=activated`);
      await page().getByRole('link', { name: /^act_/ }).first().click();
      await page().waitForURL(/\/admin\/activations\/act_/);
      expect(await page().locator('details.action').count()).toBe(0);
      expect(
        await page()
          .locator('button', { hasText: /Release|Revoke/ })
          .count(),
      ).toBe(0);
      expect(await page().textContent('main')).toContain('read-only token');
      const path = new URL(page().url()).pathname;
      // The page's own form token, posted from the page itself (a form, as the CSP allows): only the scope is missing.
      const [forged] = await Promise.all([
        page().waitForResponse((res) => res.request().method() === 'POST'),
        page().evaluate((action) => {
          const form = document.createElement('form');
          form.method = 'post';
          form.action = action;
          for (const [name, value] of [
            ['form_token', (document.querySelector('input[name="form_token"]') as HTMLInputElement).value],
            ['reason', 'forged'],
          ]) {
            const input = document.createElement('input');
            input.name = name!;
            input.value = value!;
            form.append(input);
          }
          document.body.append(form);
          form.submit();
        }, `${path}/release`),
      ]);
      expect(forged.status()).toBe(403);
      await page().waitForLoadState();
      expect(await page().textContent('main')).toContain('read-only token');
      await page().goto(`${origin()}${path}`);
      expect(await page().locator('.badge').first().textContent()).toBe('activated');
      browser!.errors.length = 0;
    },
    MANY_VIEWS_MS,
  );

  it(
    'signed out, the console shows nothing of the fleet',
    async () => {
      await signIn(tokens.viewer);
      await page().goto(`${origin()}/admin/activations`);
      await page().getByRole('button', { name: 'Sign out' }).click();
      await page().waitForURL(`${origin()}/admin?signed_out=1`);
      expect(await page().locator('#sign-in-notice').textContent()).toContain('You are signed out.');
      for (const view of ['/admin/activations', '/admin/servers', '/admin/events', '/admin/webhooks']) {
        await page().goto(`${origin()}${view}`);
        expect({
          view,
          nav: await page().locator('.console-nav').count(),
          ids: (await page().textContent('main'))!.includes('act_'),
        }).toEqual({ view, nav: 0, ids: false });
      }
      browser!.errors.length = 0;
    },
    MANY_VIEWS_MS,
  );

  async function checkViews(views: [string, string][]) {
    for (const [name, path] of views) {
      const res = await page().goto(`${origin()}${path}`);
      expect({ name, status: res?.status() }).toEqual({ name, status: name === 'not-found' ? 404 : 200 });
      // Open the action, so that its confirmation is checked and seen too.
      if (await page().locator('details.action').count())
        await page().locator('details.action summary').first().click();
      await expectAccessible(page(), name);
      await screenshots(name);
    }
    expect(browser!.offOriginRequests()).toEqual([]);
    expect(browser!.errors.filter((e) => !e.includes('status of 404'))).toEqual([]);
  }

  it(
    'has no axe violation on the sign-in form, the overview, the search and the lists, and fits 390 px',
    async () => {
      await page().goto(`${origin()}/admin`);
      await expectAccessible(page(), 'sign-in');
      await screenshots('sign-in');
      await signIn(tokens.alice);
      await checkViews([
        ['overview', '/admin'],
        ['search', '/admin/search?q=edge'],
        ['codes', '/admin/codes'],
        ['new code', '/admin/codes/new'],
        ['activations', '/admin/activations'],
        ['servers', '/admin/servers'],
        ['events', '/admin/events'],
        ['webhooks', '/admin/webhooks'],
      ]);
    },
    ALL_VIEWS_MS,
  );

  it(
    'has no axe violation on the detail views and a refusal, and fits 390 px',
    async () => {
      await signIn(tokens.alice);
      const firstLink = async (list: string) => {
        await page().goto(`${origin()}/admin/${list}${list === 'activations' ? '?status=activated' : ''}`);
        return (await page().locator(`a.id[href^="/admin/${list}/"]`).first().getAttribute('href'))!;
      };
      const firstCode = await firstLink('codes');
      const approvalCode = await codeWithPrechecks(t!);
      await checkViews([
        ['code', firstCode],
        ['code-approval', `/admin/codes/${approvalCode}`],
        ['activation', await firstLink('activations')],
        ['server', await firstLink('servers')],
        ['not-found', '/admin/servers/srv_0000000000000000'],
      ]);
    },
    ALL_VIEWS_MS,
  );
});
