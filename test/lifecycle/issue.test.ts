import { describe, expect, it } from 'vitest';
import { browserSessions, installCodes } from '../../src/db/schema.js';
import { expectError, issueRequest, openBrowserSession } from '../support/install-flow.js';
import { buildTestApp, useTestApp } from '../support/test-app.js';

describe('GET /slowdns and POST /api/v2/slowdns/code/issue', () => {
  const t = useTestApp();

  it('the page sets an HttpOnly, SameSite=Lax session cookie with Max-Age and no Secure over http', async () => {
    const res = await t.request('/slowdns');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^slowdns_browser=[A-Za-z0-9_-]{43}; Max-Age=3600; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(await t.database.db.select().from(browserSessions)).toHaveLength(1);
  });

  it('keeps a valid session instead of replacing it', async () => {
    const cookie = await openBrowserSession(t);
    const again = await t.request('/slowdns', { headers: { cookie } });
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(await t.database.db.select().from(browserSessions)).toHaveLength(1);
  });

  it('replaces an expired session', async () => {
    const cookie = await openBrowserSession(t);
    t.clock.advance(3600);
    const again = await t.request('/slowdns', { headers: { cookie } });
    expect(again.headers.get('set-cookie')).toMatch(/^slowdns_browser=/);
  });

  it('marks the cookie Secure when PUBLIC_BASE_URL is https', async () => {
    const https = buildTestApp(t.database, t.keys, { PUBLIC_BASE_URL: 'https://activate.example.net' });
    const res = await https.request('/slowdns');
    expect(res.headers.get('set-cookie')).toMatch(/; Secure/);
  });

  it('issues no code without a session cookie: 403 browser_session_required', async () => {
    const res = await t.request('/api/v2/slowdns/code/issue', { method: 'POST' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    await expectError(res, 403, 'browser_session_required');
    expect(await t.database.db.select().from(installCodes)).toHaveLength(0);
  });

  it('refuses an unknown cookie and an expired session', async () => {
    await expectError(await issueRequest(t, 'slowdns_browser=made-up-value'), 403, 'browser_session_required');
    const cookie = await openBrowserSession(t);
    t.clock.advance(3600);
    await expectError(await issueRequest(t, cookie), 403, 'browser_session_required');
    expect(await t.database.db.select().from(installCodes)).toHaveLength(0);
  });

  it('refuses another site by Origin or Sec-Fetch-Site: 403 cross_site_request', async () => {
    const cookie = await openBrowserSession(t);
    await expectError(
      await issueRequest(t, cookie, undefined, { origin: 'https://evil.example' }),
      403,
      'cross_site_request',
    );
    await expectError(
      await issueRequest(t, cookie, undefined, { 'sec-fetch-site': 'cross-site' }),
      403,
      'cross_site_request',
    );
    await expectError(
      await issueRequest(t, cookie, undefined, { 'sec-fetch-site': 'same-site' }),
      403,
      'cross_site_request',
    );
    await expectError(await issueRequest(t, cookie, undefined, { origin: 'null' }), 403, 'cross_site_request');
    expect(await t.database.db.select().from(installCodes)).toHaveLength(0);
  });

  it("accepts the page's own origin, by PUBLIC_BASE_URL or by Host", async () => {
    const cookie = await openBrowserSession(t);
    const viaBase = await issueRequest(t, cookie, undefined, {
      origin: 'http://localhost:8080',
      'sec-fetch-site': 'same-origin',
    });
    expect(viaBase.status).toBe(201);
    const viaHost = await t.request('http://127.0.0.1:8080/api/v2/slowdns/code/issue', {
      method: 'POST',
      headers: { cookie, origin: 'http://127.0.0.1:8080', host: '127.0.0.1:8080' },
    });
    expect(viaHost.status).toBe(201);
  });

  it('takes no body, an empty JSON body or an empty object alike', async () => {
    for (const init of [
      {},
      { headers: { 'content-type': 'application/json' } },
      { headers: { 'content-type': 'application/json' }, body: '{}' },
    ]) {
      await t.reset();
      const cookie = await openBrowserSession(t);
      const res = await t.request('/api/v2/slowdns/code/issue', {
        method: 'POST',
        ...init,
        headers: { cookie, ...init.headers },
      });
      expect(res.status).toBe(201);
    }
  });

  it('stores the code only as a hash with its hint, and answers no-store', async () => {
    const cookie = await openBrowserSession(t);
    const res = await issueRequest(t, cookie);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { data } = await res.json();
    const [row] = await t.database.db.select().from(installCodes);
    expect(row).toMatchObject({
      status: 'issued',
      hint: data.install_code_hint,
      codeHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(row)).not.toContain(data.install_code);
  });
});
