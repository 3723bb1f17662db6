import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { consoleSessions, events, operatorTokens } from '../../src/db/schema.js';
import {
  describeWithBrowser,
  openBrowser,
  serveOverHttp,
  type BrowserSession,
  type HttpServer,
} from '../support/browser.js';
import { activatedInstall } from '../support/install-flow.js';
import {
  OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET,
  OIDC_ROLES,
  startOidcProvider,
  type TestOidcProvider,
} from '../support/oidc-provider.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { ADMIN_TOKEN } from './console-support.js';
import { slowdns } from '../support/slowdns-in-process.js';

const WALK_MS = 120_000;

describeWithBrowser('operators sign in to the console with oidc-provider, walked in headless Chromium', () => {
  let t: TestApp | undefined;
  let server: HttpServer | undefined;
  let provider: TestOidcProvider | undefined;
  let browser: BrowserSession | undefined;
  const page = () => browser!.page;

  beforeAll(async () => {
    server = await serveOverHttp(async (origin) => {
      provider = await startOidcProvider(origin);
      t = await createTestApp({
        PUBLIC_BASE_URL: origin,
        ADMIN_TOKEN,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID,
        OIDC_CLIENT_SECRET,
        OIDC_ROLES,
        IDENTITY_ISSUER_ALLOW_HTTP: 'true',
        IDENTITY_ISSUER_ALLOW_PRIVATE: 'true',
      });
      return t.app;
    });
    browser = await openBrowser(server.origin, { alsoAllow: [provider!.issuer] });
  });
  beforeEach(async () => {
    await t!.reset();
    await browser!.reset({ width: 1280, height: 900 });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await provider?.close();
    await t?.close();
  });

  /** The console's button, the provider's login page (any password) and consent page, back to the console. */
  async function signInAs(login: string): Promise<void> {
    await page().goto(`${server!.origin}/admin`);
    await page().click('#sign-in-sso');
    await page().waitForURL((url) => url.origin === provider!.issuer);
    await page().fill('input[name="login"]', login);
    await page().fill('input[name="password"]', 'any password');
    await page().click('button[type="submit"]');
    await page().waitForSelector('button:has-text("Continue")');
    await page().click('button:has-text("Continue")');
    await page().waitForURL((url) => url.origin === server!.origin && url.pathname !== '/admin/sign-in/callback');
  }

  const header = () => page().locator('.console-who p').textContent();

  /**
   * A form forged on the console's own page (its session's form token; the CSP allows no fetch), as a
   * person could with the browser's tools: the answer's status and text.
   */
  async function postFromPage(
    action: string,
    fields: Record<string, string>,
  ): Promise<{ status: number; text: string }> {
    const answer = page().waitForResponse((res) => res.url() === `${server!.origin}${action}`);
    await page().evaluate(
      ({ action, fields }) => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = action;
        const token = (document.querySelector('input[name="form_token"]') as HTMLInputElement).value;
        for (const [name, value] of Object.entries({ form_token: token, ...fields })) {
          const input = document.createElement('input');
          input.type = 'hidden';
          input.name = name;
          input.value = value;
          form.append(input);
        }
        document.body.append(form);
        form.submit();
      },
      { action, fields },
    );
    const res = await answer;
    await page().waitForLoadState();
    return { status: res.status(), text: (await page().locator('main').textContent()) ?? '' };
  }

  it(
    'walks a root operator through the provider into the console: named by email, root, with the Operators page',
    async () => {
      await signInAs('rosa');
      expect(page().url()).toBe(`${server!.origin}/admin`);
      expect(await header()).toContain('Signed in as rosa@example.com');
      expect(await page().locator('.scope').getAttribute('data-scope')).toBe('root');
      await page().click('a[href="/admin/operators"]');
      expect(await page().locator('h1').textContent()).toBe('Operators');
      const [session] = await t!.database.db.select().from(consoleSessions);
      expect({ scope: session!.scope, sub: session!.oidcSubject, issuer: session!.oidcIssuer }).toEqual({
        scope: 'root',
        sub: 'rosa',
        issuer: provider!.issuer,
      });
    },
    WALK_MS,
  );

  it(
    'gives a write-group member read and write, and a read-group member read only, whose revoke is refused',
    async () => {
      await signInAs('wim');
      expect(await page().locator('.scope').getAttribute('data-scope')).toBe('write');
      await page().context().clearCookies();
      const install = await activatedInstall(t!);
      await signInAs('rita');
      expect(await page().locator('.scope').getAttribute('data-scope')).toBe('read');
      expect(await page().locator('a[href="/admin/operators"]').count()).toBe(0);
      // A read operator sees no revoke form; one forged from the console's own page is refused all the same.
      const refused = await postFromPage(`/admin/activations/${install.activationId}/release`, { reason: 'trying' });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('actions need the write scope');
      const operators = await page().goto(`${server!.origin}/admin/operators`);
      expect(operators!.status()).toBe(403);
    },
    WALK_MS,
  );

  it(
    'tells a person in no mapped group why, with 403 and no session',
    async () => {
      await page().goto(`${server!.origin}/admin`);
      await page().click('#sign-in-sso');
      await page().fill('input[name="login"]', 'nora');
      await page().fill('input[name="password"]', 'any password');
      await page().click('button[type="submit"]');
      const answer = page().waitForResponse((res) => res.url().startsWith(`${server!.origin}/admin/sign-in/callback`));
      await page().click('button:has-text("Continue")');
      expect((await answer).status()).toBe(403);
      expect(await page().locator('#sign-in-refusal').textContent()).toContain('none of your groups is given a role');
      expect(await t!.database.db.select().from(consoleSessions)).toEqual([]);
    },
    WALK_MS,
  );

  it(
    'signs out: the console session ends, the provider ends its own, and the person lands signed out',
    async () => {
      await signInAs('rosa');
      await page().click('.console-who button[type="submit"]');
      await page().waitForURL((url) => url.origin === provider!.issuer);
      // The provider asks to confirm its own sign-out (its RP-initiated logout page).
      await page().click('button[autofocus], button[name="logout"], button[type="submit"]');
      await page().waitForURL((url) => url.origin === server!.origin);
      expect(await page().locator('#sign-in-notice').textContent()).toBe('You are signed out.');
      expect(await t!.database.db.select().from(consoleSessions)).toEqual([]);
    },
    WALK_MS,
  );

  /**
   * A sign-in started outside the browser (so the browser lacks its flow cookie and its own callback finds
   * no flow), walked through the provider in the browser: the callback URL the provider sent it to and the
   * flow's cookie, for a test to present as it likes.
   */
  async function heldCallback(login: string, alter?: (url: URL) => void): Promise<{ url: URL; cookie: string }> {
    const started = await fetch(`${server!.origin}/admin/sign-in/oidc`, { redirect: 'manual' });
    const cookie = started.headers.get('set-cookie')!.split(';')[0]!;
    const authorize = new URL(started.headers.get('location')!);
    alter?.(authorize);
    let held: URL | undefined;
    const watch = (request: { url(): string }) => {
      if (request.url().startsWith(`${server!.origin}/admin/sign-in/callback`)) held = new URL(request.url());
    };
    page().on('request', watch);
    await page().goto(authorize.href);
    await page().fill('input[name="login"]', login);
    await page().fill('input[name="password"]', 'any password');
    await page().click('button[type="submit"]');
    await page().click('button:has-text("Continue")');
    await expect.poll(() => held).toBeDefined();
    page().off('request', watch);
    return { url: held!, cookie };
  }

  const present = async (held: { url: URL; cookie: string }) => {
    const res = await fetch(held.url, { headers: { cookie: held.cookie }, redirect: 'manual' });
    const html = await res.text();
    return {
      status: res.status,
      reason: /data-reason="([a-z_]+)"/.exec(html)?.[1],
      session: res.headers.getSetCookie().some((c) => c.startsWith('slowdns_console=') && !c.includes('Max-Age=0')),
    };
  };

  it(
    'refuses a replayed authorization code at the provider (400, no session), even behind a fresh flow',
    async () => {
      const first = await heldCallback('wim');
      expect(await present(first)).toEqual({ status: 200, reason: undefined, session: true });
      // An attacker with the used code starts a flow of their own and presents the code with its state.
      const theirs = await fetch(`${server!.origin}/admin/sign-in/oidc`, { redirect: 'manual' });
      const replay = new URL(first.url);
      replay.searchParams.set('state', new URL(theirs.headers.get('location')!).searchParams.get('state')!);
      const answer = await present({ url: replay, cookie: theirs.headers.get('set-cookie')!.split(';')[0]! });
      expect(answer).toEqual({ status: 400, reason: 'code', session: false });
      expect((await t!.database.db.select().from(consoleSessions)).length).toBe(1);
    },
    WALK_MS,
  );

  it(
    'refuses an ID token whose nonce is not the flow’s, as the real provider mints it (401, no session)',
    async () => {
      const held = await heldCallback('rosa', (url) => url.searchParams.set('nonce', 'a-nonce-of-another-sign-in'));
      expect(await present(held)).toEqual({ status: 401, reason: 'id_token', session: false });
      expect(await t!.database.db.select().from(consoleSessions)).toEqual([]);
    },
    WALK_MS,
  );

  it(
    'lets a root operator mint a token that works with the slowdns command, never above write, expiring within 90 days, the trail naming the person',
    async () => {
      await signInAs('rosa');
      await page().goto(`${server!.origin}/admin/operators`);
      await page().fill('#token-name', 'ci-deploy');
      await page().selectOption('#token-scope', 'write');
      await page().fill('#token-days', '30');
      await page().click('button:has-text("Make the token")');
      const token = (await page().locator('#minted-token').textContent()) ?? '';
      expect(token).toMatch(/^sdo_/);
      const [row] = await t!.database.db.select().from(operatorTokens).where(eq(operatorTokens.name, 'ci-deploy'));
      expect({ scope: row!.scope, createdBy: row!.createdBy }).toEqual({
        scope: 'write',
        createdBy: 'rosa@example.com',
      });
      expect(row!.expiresAt!.getTime() - t!.clock.now().getTime()).toBe(30 * 24 * 3600 * 1000);
      const [created] = await t!.database.db.select().from(events).where(eq(events.type, 'operator_token.created'));
      const data = created!.data as Record<string, unknown>;
      expect({ operator: data.operator, issuer: data.operator_issuer }).toEqual({
        operator: 'rosa@example.com',
        issuer: provider!.issuer,
      });

      // Above write, or beyond 90 days: refused, nothing made (forged from the console's own page).
      await page().goto(`${server!.origin}/admin/operators`);
      const aboveWrite = await postFromPage('/admin/operators/tokens', {
        name: 'escalated',
        scope: 'root',
        expires_in_days: '30',
      });
      await page().goto(`${server!.origin}/admin/operators`);
      const tooLong = await postFromPage('/admin/operators/tokens', {
        name: 'forever',
        scope: 'read',
        expires_in_days: '365',
      });
      expect([aboveWrite.status, tooLong.status]).toEqual([400, 400]);
      expect(aboveWrite.text).toContain('never more');
      expect((await t!.database.db.select().from(operatorTokens)).map((r) => r.name)).toEqual(['ci-deploy']);

      // The minted token drives the slowdns command; the trail it prints names the person who minted it.
      const install = await activatedInstall(t!);
      const asCi = { SLOWDNS_URL: server!.origin, SLOWDNS_ADMIN_TOKEN: token };
      expect((await slowdns(['activations', 'release', install.activationId, '--reason', 'rebuild'], asCi)).code).toBe(
        0,
      );
      const trail = await slowdns(['events', 'list', '--type', 'operator_token.created'], asCi);
      expect(trail.code).toBe(0);
      expect(trail.stdout).toContain('operator rosa@example.com');
      const released = JSON.parse(
        (await slowdns(['events', 'list', '--type', 'activation.released', '--json'], asCi)).stdout,
      );
      expect(released.items[0].data.operator).toBe('ci-deploy');
    },
    WALK_MS,
  );
});
