import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { browserSessions, rateLimitBuckets } from '../../src/db/schema.js';
import { SLOWDNS_PAGE_CSP } from '../../src/page/slowdns-page.js';
import { buildTestApp, createTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
beforeEach(async () => {
  await t.database.reset();
});
afterAll(async () => {
  await t.close();
});

/** The URLs of the scripts and stylesheet the page links to. */
function assetUrls(html: string): { scripts: string[]; style: string } {
  const scripts = [...html.matchAll(/<script src="([^"]+)" defer><\/script>/g)].map((m) => m[1]!);
  const style = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1];
  if (scripts.length === 0 || !style) throw new Error('the page links no scripts or stylesheet');
  return { scripts, style };
}

describe('GET /slowdns', () => {
  it('answers HTML with no-store, no-referrer, nosniff and a CSP that allows only its own files', async () => {
    const res = await t.request('/slowdns');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe(SLOWDNS_PAGE_CSP);
    expect(SLOWDNS_PAGE_CSP).not.toMatch(/unsafe-(inline|eval)/);
    const html = await res.text();
    expect(html).not.toMatch(/<script>|<style|style="|\son[a-z]+=/);
    // Nothing is loaded from elsewhere: no absolute URL at all.
    expect(html).not.toMatch(/https?:\/\//);
    expect(assetUrls(html)).toEqual({
      scripts: ['page-kit', 'app', 'watch', 'approval'].map((name) =>
        expect.stringMatching(new RegExp(`^/slowdns/${name}\\.js\\?v=[0-9a-f]{16}$`)),
      ),
      style: expect.stringMatching(/^\/slowdns\/app\.css\?v=[0-9a-f]{16}$/),
    });
  });

  it('HEAD answers the page headers without a body, and never creates a session or counts a limit', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await t.request('/slowdns', { method: 'HEAD' });
      expect({
        status: res.status,
        type: res.headers.get('content-type'),
        setCookie: res.headers.get('set-cookie'),
        rateLimit: res.headers.get('ratelimit'),
      }).toEqual({
        status: 200,
        type: 'text/html; charset=UTF-8',
        setCookie: null,
        rateLimit: null,
      });
      expect(await res.text()).toBe('');
    }
    expect(await t.database.db.select().from(browserSessions)).toEqual([]);
    expect(await t.database.db.select().from(rateLimitBuckets)).toEqual([]);
  });

  it('states the code lifetime from INSTALL_CODE_TTL_SECONDS', async () => {
    const tenMinutes = buildTestApp(t.database, t.keys, { INSTALL_CODE_TTL_SECONDS: '600' });
    expect(await (await tenMinutes.request('/slowdns')).text()).toContain('expires 10 minutes after you get it');
    expect(await (await t.request('/slowdns')).text()).toContain('expires 15 minutes after you get it');
  });
});

describe('the page script and stylesheet', () => {
  it('are served by the service with their types, the page CSP, and a long cache for the versioned URL', async () => {
    const { scripts, style } = assetUrls(await (await t.request('/slowdns')).text());
    expect(scripts.map((url) => url.replace(/\?v=[0-9a-f]{16}$/, ''))).toEqual([
      '/slowdns/page-kit.js',
      '/slowdns/app.js',
      '/slowdns/watch.js',
      '/slowdns/approval.js',
    ]);
    for (const [url, type] of [
      ...scripts.map((url) => [url, 'text/javascript; charset=utf-8'] as const),
      [style, 'text/css; charset=utf-8'] as const,
    ]) {
      const res = await t.request(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-security-policy')).toBe(SLOWDNS_PAGE_CSP);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('set-cookie')).toBeNull();
      expect((await res.text()).length).toBeGreaterThan(100);
    }
  });

  it('are revalidated when asked for without the current version', async () => {
    const res = await t.request('/slowdns/app.js?v=0000000000000000');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
  });

  it('stay out of the OpenAPI document', async () => {
    const paths = Object.keys((await (await t.request('/openapi.json')).json()).paths);
    expect(paths).toContain('/slowdns');
    // The shell client under /slowdns/activate.sh is for installers: documented (test/installer/installer-script.test.ts).
    expect(paths.filter((p) => p.startsWith('/slowdns/') && !p.startsWith('/slowdns/activate.sh'))).toEqual([]);
  });
});
