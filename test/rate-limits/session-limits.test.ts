import { describe, expect, it } from 'vitest';
import { browserSessions } from '../../src/db/schema.js';
import { browserAt } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { SLOWDNS_PAGE_CSP } from '../../src/page/slowdns-page.js';
import { bucketRows, countsByLimit, parseRateLimit } from './rate-limit-support.js';

/** Over the session limit a person gets a page, not the JSON envelope: when to come back, in words, and the usual headers. */
async function expectComeBackPage(res: Response, retryAfter: number, phrases: string[]): Promise<void> {
  expect({
    status: res.status,
    type: res.headers.get('content-type'),
    retryAfter: res.headers.get('retry-after'),
    policy: res.headers.get('ratelimit-policy'),
    rateLimit: parseRateLimit(res.headers.get('ratelimit')),
    csp: res.headers.get('content-security-policy'),
    setCookie: res.headers.get('set-cookie'),
  }).toEqual({
    status: 429,
    type: 'text/html; charset=UTF-8',
    retryAfter: String(retryAfter),
    policy: '"session-ip-hour";q=30;w=3600',
    rateLimit: { 'session-ip-hour': { r: 0, t: retryAfter } },
    csp: SLOWDNS_PAGE_CSP,
    setCookie: null,
  });
  const html = await res.text();
  expect(html).toMatch(/^<!doctype html>/);
  for (const phrase of phrases) expect(html).toContain(phrase);
}

describe('session limit: 30 new browser sessions per IP per UTC hour on GET /slowdns', () => {
  const t = useTestApp();

  const sessionRows = async () => (await t.database.db.select().from(browserSessions)).length;
  const loadPage = (address: string, cookie?: string) =>
    t.request('/slowdns', cookie ? { headers: { cookie } } : {}, address);

  it('session-ip-hour: the 31st new session from one IP in an hour is 429, sets no cookie and stores no row, until 11:00:00', async () => {
    t.clock.set('2026-11-22T10:20:00Z');
    for (let i = 1; i <= 30; i++) {
      const res = await loadPage('203.0.113.10');
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toMatch(/^slowdns_browser=/);
      expect(res.headers.get('ratelimit-policy')).toBe('"session-ip-hour";q=30;w=3600');
      expect(parseRateLimit(res.headers.get('ratelimit'))).toEqual({ 'session-ip-hour': { r: 30 - i, t: 2400 } });
    }
    const refused = await loadPage('203.0.113.10');
    expect({
      setCookie: refused.headers.get('set-cookie'),
      cacheControl: refused.headers.get('cache-control'),
    }).toEqual({ setCookie: null, cacheControl: 'no-store' });
    await expectComeBackPage(refused, 2400, ['Come back in 40 minutes', 'Try again after <strong>11:00 UTC</strong>']);
    expect(await sessionRows()).toBe(30);
    expect(await countsByLimit(t)).toEqual({ 'session-ip-hour': 30 });

    expect((await loadPage('198.51.100.7')).status).toBe(200);
    t.clock.set('2026-11-22T10:59:59Z');
    await expectComeBackPage(await loadPage('203.0.113.10'), 1, ['Come back in less than a minute']);
    t.clock.set('2026-11-22T11:00:00Z');
    const next = await loadPage('203.0.113.10');
    expect(next.headers.get('set-cookie')).toMatch(/^slowdns_browser=/);
    expect(await sessionRows()).toBe(32);
  });

  it('a browser that sends its valid cookie is never counted and still gets the page when its IP is over the limit', async () => {
    t.clock.set('2026-11-22T10:00:00Z');
    const browser = await browserAt(t, '203.0.113.10', 'ua-1');
    for (let i = 2; i <= 30; i++) expect((await loadPage('203.0.113.10')).status).toBe(200);
    expect((await loadPage('203.0.113.10')).status).toBe(429);
    const before = await bucketRows(t);
    for (let i = 0; i < 5; i++) {
      const res = await loadPage('203.0.113.10', browser.cookie);
      expect({
        status: res.status,
        setCookie: res.headers.get('set-cookie'),
        rateLimit: res.headers.get('ratelimit'),
      }).toEqual({ status: 200, setCookie: null, rateLimit: null });
    }
    expect(await bucketRows(t)).toEqual(before);
  });

  it('an unknown or expired cookie is a new session, counted like none', async () => {
    t.clock.set('2026-11-22T10:00:00Z');
    const browser = await browserAt(t, '203.0.113.10', 'ua-1');
    t.clock.advance(3600);
    expect((await loadPage('203.0.113.10', browser.cookie)).headers.get('set-cookie')).toMatch(/^slowdns_browser=/);
    expect((await loadPage('203.0.113.10', 'slowdns_browser=forged')).headers.get('set-cookie')).toMatch(
      /^slowdns_browser=/,
    );
    expect(await countsByLimit(t)).toEqual({ 'session-ip-hour': 3 });
  });
});
