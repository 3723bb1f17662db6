import { describe, expect, it } from 'vitest';
import { browserAt } from '../support/install-flow.js';
import { buildTestApp, useTestApp } from '../support/test-app.js';
import {
  bucketRows,
  countsByLimit,
  expectRateLimited,
  issueFrom,
  issueFromNewBrowser,
  parseRateLimit,
} from './rate-limit-support.js';

const ISSUE = '/api/v2/slowdns/code/issue';

describe('issue limits: 3/IP/hour, 10/IP/day, 2/session/hour, 6/fingerprint/day', () => {
  const t = useTestApp();

  it('admitted answers carry RateLimit-Policy and RateLimit for every issue policy, and no Retry-After', async () => {
    t.clock.set('2026-11-22T10:30:00Z');
    const res = await issueFromNewBrowser(t, '203.0.113.10', 'ua-1');
    expect(res.status).toBe(201);
    expect(res.headers.get('ratelimit-policy')).toBe(
      '"issue-ip-hour";q=3;w=3600, "issue-ip-day";q=10;w=86400, "issue-session-hour";q=2;w=3600, "issue-fingerprint-day";q=6;w=86400',
    );
    expect(res.headers.get('ratelimit')).toBe(
      '"issue-ip-hour";r=2;t=1800, "issue-ip-day";r=9;t=48600, "issue-session-hour";r=1;t=1800, "issue-fingerprint-day";r=5;t=48600',
    );
    expect(res.headers.get('retry-after')).toBeNull();
  });

  it('issue-session-hour: the third issue in one session is 429 until exactly 11:00:00 UTC', async () => {
    t.clock.set('2026-11-22T10:40:00Z');
    const browser = await browserAt(t, '203.0.113.10', 'ua-1');
    expect((await issueFrom(t, browser)).status).toBe(201);
    expect((await issueFrom(t, browser)).status).toBe(201);
    await expectRateLimited(
      await issueFrom(t, browser),
      'issue-session-hour',
      1200,
      'Try again in 20 minutes (after 11:00 UTC).',
    );

    t.clock.set('2026-11-22T10:59:59Z');
    await expectRateLimited(
      await issueFrom(t, browser),
      'issue-session-hour',
      1,
      'Try again in 1 second (after 11:00 UTC).',
    );
    t.clock.set('2026-11-22T11:00:00Z');
    const next = await issueFrom(t, browser);
    expect(next.status).toBe(201);
    expect(parseRateLimit(next.headers.get('ratelimit'))['issue-session-hour']).toEqual({ r: 1, t: 3600 });
  });

  it('issue-ip-hour: a fourth issue from one IP in an hour is 429 even from a new session and browser, until 11:00:00', async () => {
    t.clock.set('2026-11-22T10:15:00Z');
    for (const ua of ['ua-1', 'ua-2', 'ua-3'])
      expect((await issueFromNewBrowser(t, '203.0.113.10', ua)).status).toBe(201);
    await expectRateLimited(
      await issueFromNewBrowser(t, '203.0.113.10', 'ua-4'),
      'issue-ip-hour',
      2700,
      'Try again in 45 minutes (after 11:00 UTC).',
    );
    expect((await issueFromNewBrowser(t, '198.51.100.7', 'ua-4')).status).toBe(201);

    t.clock.set('2026-11-22T10:59:59Z');
    await expectRateLimited(await issueFromNewBrowser(t, '203.0.113.10', 'ua-5'), 'issue-ip-hour', 1);
    t.clock.set('2026-11-22T11:00:00Z');
    expect((await issueFromNewBrowser(t, '203.0.113.10', 'ua-5')).status).toBe(201);
  });

  it('issue-ip-day: an eleventh issue from one IP in a UTC day is 429 until exactly 00:00:00 UTC', async () => {
    let n = 0;
    const issueAt = async (iso: string) => {
      t.clock.set(iso);
      n += 1;
      return issueFromNewBrowser(t, '203.0.113.10', `ua-${n}`);
    };
    for (const hour of ['20', '21', '22']) {
      for (const minute of ['00', '01', '02'])
        expect((await issueAt(`2026-11-22T${hour}:${minute}:00Z`)).status).toBe(201);
    }
    expect((await issueAt('2026-11-22T23:00:00Z')).status).toBe(201);
    await expectRateLimited(
      await issueAt('2026-11-22T23:00:00Z'),
      'issue-ip-day',
      3600,
      'Try again in 1 hour (after 00:00 UTC).',
    );
    await expectRateLimited(await issueAt('2026-11-22T23:59:59Z'), 'issue-ip-day', 1);
    const next = await issueAt('2026-11-23T00:00:00Z');
    expect(next.status).toBe(201);
    expect(parseRateLimit(next.headers.get('ratelimit'))['issue-ip-day']).toEqual({ r: 9, t: 86_400 });
  });

  it('issue-fingerprint-day: a seventh issue by one browser in a UTC day is 429 from any IP and session, until 00:00 UTC', async () => {
    t.clock.set('2026-11-22T18:00:00Z');
    for (let i = 1; i <= 6; i++)
      expect((await issueFromNewBrowser(t, `198.51.100.${i}`, 'Mozilla/5.0 same-browser')).status).toBe(201);
    await expectRateLimited(
      await issueFromNewBrowser(t, '198.51.100.7', 'Mozilla/5.0 same-browser'),
      'issue-fingerprint-day',
      21_600,
      'Try again in 6 hours (after 00:00 UTC).',
    );
    // Another browser, or the same headers refined by a different page signal, is another fingerprint.
    expect((await issueFromNewBrowser(t, '198.51.100.7', 'Mozilla/5.0 other-browser')).status).toBe(201);
    const refined = await browserAt(t, '198.51.100.8', 'Mozilla/5.0 same-browser');
    expect((await issueFrom(t, refined, { body: { browser_signal: '1920x1080|Europe/Berlin' } })).status).toBe(201);

    t.clock.set('2026-11-22T23:59:59Z');
    await expectRateLimited(
      await issueFromNewBrowser(t, '198.51.100.9', 'Mozilla/5.0 same-browser'),
      'issue-fingerprint-day',
      1,
    );
    t.clock.set('2026-11-23T00:00:00Z');
    expect((await issueFromNewBrowser(t, '198.51.100.9', 'Mozilla/5.0 same-browser')).status).toBe(201);
  });

  /** One issue per new browser from 203.0.113.10 at each `HH:MM` of 2026-11-22. */
  async function issuesAt(times: string[]): Promise<void> {
    for (const [i, time] of times.entries()) {
      t.clock.set(`2026-11-22T${time}:00Z`);
      expect((await issueFromNewBrowser(t, '203.0.113.10', `earlier-${i}`)).status).toBe(201);
    }
  }

  it('several limits exhausted at once: Retry-After and the message are those of the one that resets last (issue-ip-hour and issue-ip-day)', async () => {
    // 10 issues today, the last 3 in the 22:00 hour: at 22:30 the hour resets in 1800 s, the day in 5400 s.
    await issuesAt(['19:00', '19:01', '19:02', '20:00', '20:01', '20:02', '21:00', '22:10', '22:11', '22:12']);
    t.clock.set('2026-11-22T22:30:00Z');
    const res = await issueFromNewBrowser(t, '203.0.113.10', 'ua-new');
    expect(parseRateLimit(res.headers.get('ratelimit'))['issue-ip-hour']).toEqual({ r: 0, t: 1800 });
    await expectRateLimited(res, 'issue-ip-day', 5400, 'Try again in 1 hour 30 minutes (after 00:00 UTC).');
  });

  it('several limits exhausted at once: the one that resets last wins even when listed first (issue-ip-day before issue-session-hour)', async () => {
    await issuesAt(['19:00', '19:01', '19:02', '20:00', '20:01', '20:02', '21:00', '21:01']);
    t.clock.set('2026-11-22T22:10:00Z');
    const browser = await browserAt(t, '203.0.113.10', 'ua-kept');
    expect((await issueFrom(t, browser)).status).toBe(201);
    expect((await issueFrom(t, browser)).status).toBe(201);
    t.clock.set('2026-11-22T22:30:00Z');
    const res = await issueFrom(t, browser);
    const states = parseRateLimit(res.headers.get('ratelimit'));
    expect({ hour: states['issue-ip-hour'], session: states['issue-session-hour'] }).toEqual({
      hour: { r: 1, t: 1800 },
      session: { r: 0, t: 1800 },
    });
    await expectRateLimited(res, 'issue-ip-day', 5400, 'Try again in 1 hour 30 minutes (after 00:00 UTC).');
  });

  it('a request refused by one limit leaves every other counter unchanged', async () => {
    t.clock.set('2026-11-22T10:00:00Z');
    const browser = await browserAt(t, '203.0.113.10', 'ua-1');
    await issueFrom(t, browser);
    await issueFrom(t, browser);
    const before = await bucketRows(t, 'issue');
    expect(await countsByLimit(t, 'issue')).toEqual({
      'issue-ip-hour': 2,
      'issue-ip-day': 2,
      'issue-session-hour': 2,
      'issue-fingerprint-day': 2,
    });
    await expectRateLimited(await issueFrom(t, browser), 'issue-session-hour', 3600);
    expect(await bucketRows(t, 'issue')).toEqual(before);

    // Refused by the IP: the new session and the new browser get no row at all.
    await issueFromNewBrowser(t, '203.0.113.10', 'ua-2');
    const full = await bucketRows(t, 'issue');
    await expectRateLimited(await issueFromNewBrowser(t, '203.0.113.10', 'ua-3'), 'issue-ip-hour', 3600);
    expect(await bucketRows(t, 'issue')).toEqual(full);
  });

  it('a missing, unknown or expired session is refused with 403 before anything is counted', async () => {
    t.clock.set('2026-11-22T10:00:00Z');
    const noCookie = await t.request(ISSUE, { method: 'POST' });
    expect(noCookie.status).toBe(403);
    expect((await noCookie.json()).error.code).toBe('browser_session_required');
    const unknown = await t.request(ISSUE, { method: 'POST', headers: { cookie: 'slowdns_browser=forged' } });
    expect((await unknown.json()).error.code).toBe('browser_session_required');
    const browser = await browserAt(t, '203.0.113.10', 'ua-1');
    t.clock.advance(3600);
    const expired = await issueFrom(t, browser);
    expect({ status: expired.status, code: (await expired.json()).error.code }).toEqual({
      status: 403,
      code: 'browser_session_required',
    });
    expect(expired.headers.get('ratelimit')).toBeNull();
    const crossSite = await issueFrom(t, await browserAt(t, '203.0.113.10', 'ua-1'), {
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect((await crossSite.json()).error.code).toBe('cross_site_request');
    expect(await bucketRows(t, 'issue')).toEqual([]);
  });

  it('a browser_signal over 512 characters is 400 and counts nothing', async () => {
    t.clock.set('2026-11-22T10:00:00Z');
    const browser = await browserAt(t, '203.0.113.10', 'ua-1');
    const tooLong = await issueFrom(t, browser, { body: { browser_signal: 'x'.repeat(513) } });
    expect({ status: tooLong.status, code: (await tooLong.json()).error.code }).toEqual({
      status: 400,
      code: 'validation_failed',
    });
    expect(await bucketRows(t, 'issue')).toEqual([]);
  });

  it('issue needs no body and no Content-Type', async () => {
    t.clock.set('2026-11-22T10:00:00Z');
    const browser = await browserAt(t, '203.0.113.10', 'ua-1');
    expect((await issueFrom(t, browser)).status).toBe(201);
    expect((await issueFrom(t, browser, { body: {} })).status).toBe(201);
  });

  it('without TRUST_PROXY a forged X-Forwarded-For changes nothing: the socket address is counted', async () => {
    t.clock.set('2026-11-22T10:00:00Z');
    for (let i = 1; i <= 3; i++) {
      const res = await issueFrom(t, await browserAt(t, '203.0.113.10', `ua-${i}`), {
        headers: { 'x-forwarded-for': `192.0.2.${i}` },
      });
      expect(res.status).toBe(201);
    }
    const forged = await issueFrom(t, await browserAt(t, '203.0.113.10', 'ua-4'), {
      headers: { 'x-forwarded-for': '192.0.2.99' },
    });
    await expectRateLimited(forged, 'issue-ip-hour', 3600);
  });

  it('with TRUST_PROXY=1 the client address X-Forwarded-For names is counted, not the proxy', async () => {
    t.clock.set('2026-11-22T10:00:00Z');
    const behindProxy = buildTestApp(t.database, t.keys, { TRUST_PROXY: '1' }, t.clock);
    const viaProxy = async (client: string, ua: string) =>
      issueFrom(behindProxy, await browserAt(behindProxy, '10.0.0.1', ua), {
        headers: { 'x-forwarded-for': client },
      });
    for (let i = 1; i <= 4; i++) expect((await viaProxy(`192.0.2.${i}`, `ua-${i}`)).status).toBe(201);
    expect((await viaProxy('192.0.2.1', 'ua-5')).status).toBe(201);
    expect((await viaProxy('192.0.2.1', 'ua-6')).status).toBe(201);
    await expectRateLimited(await viaProxy('192.0.2.1', 'ua-7'), 'issue-ip-hour', 3600);
  });

  it('counts an IPv6 client by its /64: another address in the /64 shares the bucket, another /64 does not', async () => {
    t.clock.set('2026-11-22T10:00:00Z');
    for (let i = 1; i <= 3; i++)
      expect((await issueFromNewBrowser(t, `2001:db8:1:2::${i}`, `ua-${i}`)).status).toBe(201);
    await expectRateLimited(
      await issueFromNewBrowser(t, '2001:db8:1:2:ffff:ffff:ffff:ffff', 'ua-4'),
      'issue-ip-hour',
      3600,
    );
    expect((await issueFromNewBrowser(t, '2001:db8:1:3::1', 'ua-4')).status).toBe(201);
  });
});
