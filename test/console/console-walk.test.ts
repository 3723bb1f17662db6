/**
 * What a walk through the console found (issue 59), in headless Chromium: every machine waiting on an operator
 * can be found (a count and the codes on the overview, each one on the code's page, not only among the newest 20
 * prechecks), the code says who decides and how many wait, Deny (the safe choice) is the primary button, the reason boxes stay
 * inside the card, the overview's code count matches the list it links to, and tags read as tags in event details.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import {
  describeWithBrowser,
  openBrowser,
  serveOverHttp,
  type BrowserSession,
  type HttpServer,
} from '../support/browser.js';
import { randomMachine } from '../support/install-flow.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { createCode, decide, enroll, fleetPrecheck, showCode } from '../fleet-codes/fleet-requests.js';
import { ADMIN_TOKEN } from './console-support.js';

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
/** 25 prechecks and 20 decisions over HTTP, then a browser over several views, on a machine other tests share. */
const WALK_MS = 180_000;

describeWithBrowser('the console shows the work waiting on an operator, in headless Chromium', () => {
  let t: TestApp | undefined;
  let server: HttpServer | undefined;
  let browser: BrowserSession | undefined;
  const page = () => browser!.page;

  beforeAll(async () => {
    server = await serveOverHttp(async (o) => (t = await createTestApp({ PUBLIC_BASE_URL: o, ADMIN_TOKEN })).app);
    browser = await openBrowser(server.origin);
  });
  beforeEach(async () => {
    await t!.reset();
    await browser!.reset(DESKTOP);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await t?.close();
  });

  async function signIn() {
    await page().goto(`${server!.origin}/admin`);
    await page().getByLabel('Operator token').fill(ADMIN_TOKEN);
    await Promise.all([
      page().waitForResponse((res) => res.url().endsWith('/admin/sign-in')),
      page().keyboard.press('Enter'),
    ]);
    await page().locator('.console-who').waitFor({ timeout: 10_000 });
  }

  /** A code with 25 machines waiting, the newest 20 then approved: 5 still wait, none of them among the 20 shown. */
  async function codeWithFiveWaiting(): Promise<{ id: string; hint: string }> {
    const created = await createCode(t!, { uses: 100, require_approval: true, tags: { env: 'walk' } });
    for (let i = 0; i < 25; i++) {
      expect((await fleetPrecheck(t!, created.install_code, randomMachine(), `198.51.100.${i + 1}`)).status).toBe(200);
      t!.clock.advance(1);
    }
    for (const p of (await showCode(t!, created.install_code_id)).prechecks)
      expect((await decide(t!, created.install_code_id, p.precheck_id, 'approve')).status).toBe(200);
    return { id: created.install_code_id, hint: created.install_code_hint };
  }

  const tileValue = (label: string) => page().locator('.tile', { hasText: label }).locator('.tile-value').textContent();

  it('the overview counts the machines waiting and names their code, and its usable-code count is the list it opens', {
    timeout: WALK_MS,
  }, async () => {
    const { id, hint } = await codeWithFiveWaiting();
    // An exhausted code: unexpired and issued, but no machine can use it; the codes list's `issued` leaves it out.
    const full = await createCode(t!, { uses: 2 });
    for (const address of ['203.0.113.1', '203.0.113.2'])
      expect((await enroll(t!, full.install_code, { address })).status).toBe(200);
    await signIn();
    expect(await tileValue('machines waiting for approval')).toBe('5');
    const waiting = page().locator('section', { has: page().locator('#waiting-heading') });
    expect(await waiting.locator(`a[href="/admin/codes/${id}"]`).textContent()).toBe(hint);
    expect(await waiting.locator('td[data-label="Waiting"]').textContent()).toBe('5');
    const usable = await tileValue('codes a machine can use');
    await page().locator('.tile', { hasText: 'codes a machine can use' }).locator('a').click();
    await page().waitForURL(/status=issued/);
    expect(String(await page().locator('main tbody tr').count())).toBe(usable);
    expect(usable).toBe('1');
    expect(browser!.errors).toEqual([]);
  });

  it("the code's page lists all 5 waiting, says who decides, Deny is primary as the safe choice and the reason boxes stay in the card", {
    timeout: WALK_MS,
  }, async () => {
    const { id } = await codeWithFiveWaiting();
    await signIn();
    for (const viewport of [DESKTOP, PHONE]) {
      await page().setViewportSize(viewport);
      await page().goto(`${server!.origin}/admin/codes/${id}`);
      const section = page().locator('section', { has: page().locator('#pending-heading') });
      expect(await section.locator('[data-part="waiting-count"]').textContent()).toContain('5 machines wait');
      expect(await section.locator('form[action$="/approve"]').count()).toBe(5);
      // No hostname at precheck (the installer gives it at activate): the rows name each machine by its id, SSH
      // key and the address it prechecked from (the five oldest: 198.51.100.1 to .5), and the section says so.
      expect(await section.locator('[data-part="waiting-count"]').textContent()).toContain(
        'No hostname yet: a machine gives it at activate, after the decision.',
      );
      const rows = section.locator('tbody tr');
      for (let i = 0; i < 5; i++) {
        const cells = await rows.nth(i).locator('td').allTextContents();
        expect(cells[1]).toMatch(/^[0-9a-f]{32}$/);
        expect(cells[2]).toMatch(/^SHA256:/);
        expect(cells[3]).toBe(`198.51.100.${5 - i}`);
      }
      expect(await page().locator('.console-facts').textContent()).toContain(
        'each machine on its own, an operator decides: 5 waiting',
      );
      // The safe choice is the primary button: Deny grants nothing (a machine denied by mistake prechecks again),
      // an approval lets the machine take a use for good. Nothing is red.
      expect(await section.locator('form[action$="/deny"] button').first().getAttribute('class')).toBe(
        'button primary',
      );
      expect(await section.locator('form[action$="/approve"] button').first().getAttribute('class')).toBe(
        'button secondary',
      );
      const card = await section.boundingBox();
      for (const input of await section.locator('input[name="reason"]').all()) {
        await input.scrollIntoViewIfNeeded();
        const box = (await input.boundingBox())!;
        const cardBox = (await section.boundingBox())!;
        expect(box.x + box.width, `reason box at ${viewport.width} px`).toBeLessThanOrEqual(cardBox.x + cardBox.width);
      }
      expect(card).not.toBeNull();
    }
    // The tags of the code's issue event read as tags.
    await page().setViewportSize(DESKTOP);
    await page().goto(`${server!.origin}/admin/codes/${id}`);
    const main = (await page().locator('main').textContent()) ?? '';
    expect(main).not.toContain('[object Object]');
    expect(main).toContain('tags: env=walk');
    expect(browser!.errors).toEqual([]);
  });
});
