import { describe, expect, it } from 'vitest';
import {
  activateRequest,
  confirmRequest,
  expectError,
  issue,
  machine,
  newBrowser,
  precheckRequest,
  releaseRequest,
  type Browser,
} from '../support/install-flow.js';
import { useTestApp, type TestApp } from '../support/test-app.js';

// Sessions outlive an install token here, so a test can watch a release that came too late to restore the code.
const t = useTestApp({ BROWSER_SESSION_TTL_SECONDS: '86400' });
const STATUS_PATH = '/api/v2/slowdns/code/status';

function statusRequest(target: TestApp, browser: Browser, headers: Record<string, string> = {}) {
  return target.request(
    STATUS_PATH,
    { headers: { cookie: browser.cookie, ...browser.headers, ...headers } },
    browser.address,
  );
}

async function watched(browser: Browser) {
  const res = await statusRequest(t, browser);
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = await res.text();
  return { items: JSON.parse(body).data.items as Array<Record<string, any>>, body };
}

async function activate(code: string, overrides: Record<string, unknown> = {}) {
  const pre = await precheckRequest(t, code, {}, '192.0.2.44');
  expect(pre.status).toBe(200);
  const res = await activateRequest(t, code, (await pre.json()).data.precheck_token, overrides, '192.0.2.44');
  expect(res.status).toBe(200);
  const { data } = await res.json();
  return { activationId: data.activation_id as string, installToken: data.install_token as string };
}

const shortId = machine.machine_id.slice(0, 8);

describe('GET /api/v2/slowdns/code/status', () => {
  it('follows a code from issued through prechecked and activated to confirmed, never showing the code or a token', async () => {
    const browser = await newBrowser(t);
    const { code, hint } = await issue(t, browser);

    let seen = await watched(browser);
    expect(seen.items).toEqual([
      {
        install_code_id: expect.stringMatching(/^ic_[0-9a-f]{16}$/),
        install_code_hint: hint,
        status: 'issued',
        usable: true,
        issued_at: '2026-11-22T10:00:00+00:00',
        expires_at: '2026-11-22T10:15:00+00:00',
        machine: null,
        precheck_ip: null,
        prechecked_at: null,
        activated_at: null,
        confirmed_at: null,
        released_at: null,
        revoked_at: null,
        identity_in_use: false,
        require_approval: false,
        approval: 'not_required',
        prechecks: [],
      },
    ]);

    t.clock.advance(60);
    const pre = await precheckRequest(t, code, {}, '192.0.2.44');
    expect(pre.status).toBe(200);
    const precheckToken = (await pre.json()).data.precheck_token;
    seen = await watched(browser);
    expect(seen.items[0]).toMatchObject({
      status: 'prechecked',
      usable: true,
      machine: { hostname: null, public_ip: null, machine_id_short: shortId, ssh_fingerprint: machine.ssh_fingerprint },
      precheck_ip: '192.0.2.44',
      prechecked_at: '2026-11-22T10:01:00+00:00',
    });

    t.clock.advance(60);
    const act = await activateRequest(t, code, precheckToken, {}, '192.0.2.44');
    expect(act.status).toBe(200);
    const { activation_id, install_token } = (await act.json()).data;
    seen = await watched(browser);
    expect(seen.items[0]).toMatchObject({
      status: 'activated',
      usable: false,
      machine: {
        hostname: 'vpn1.example.net',
        public_ip: '203.0.113.7',
        machine_id_short: shortId,
        ssh_fingerprint: machine.ssh_fingerprint,
      },
      activated_at: '2026-11-22T10:02:00+00:00',
      confirmed_at: null,
    });

    t.clock.advance(60);
    expect((await confirmRequest(t, activation_id, install_token)).status).toBe(200);
    seen = await watched(browser);
    expect(seen.items[0]).toMatchObject({
      status: 'confirmed',
      usable: false,
      confirmed_at: '2026-11-22T10:03:00+00:00',
      machine: { hostname: 'vpn1.example.net' },
    });

    for (const secret of [code, code.replaceAll('-', ''), precheckToken, install_token, machine.machine_id])
      expect(seen.body).not.toContain(secret);
  });

  it('shows a released install as released and usable, then as prechecked when a machine checks the restored code', async () => {
    const browser = await newBrowser(t);
    const { code } = await issue(t, browser);
    const { activationId } = await activate(code, { hostname: 'broken.example.net' });
    t.clock.advance(30);
    const released = await releaseRequest(t, activationId, { address: '192.0.2.44' });
    expect((await released.json()).data.install_code_restored).toBe(true);

    let seen = await watched(browser);
    expect(seen.items[0]).toMatchObject({
      status: 'released',
      usable: true,
      machine: { hostname: 'broken.example.net', public_ip: '203.0.113.7' },
      precheck_ip: null,
      prechecked_at: null,
      released_at: '2026-11-22T10:00:30+00:00',
    });

    expect((await precheckRequest(t, code, {}, '192.0.2.45')).status).toBe(200);
    seen = await watched(browser);
    expect(seen.items[0]).toMatchObject({
      status: 'prechecked',
      usable: true,
      machine: { hostname: null },
      precheck_ip: '192.0.2.45',
      released_at: '2026-11-22T10:00:30+00:00',
    });
  });

  it('shows a release that could not restore the code as released and not usable', async () => {
    const browser = await newBrowser(t);
    const { code } = await issue(t, browser);
    const { activationId } = await activate(code);
    // Past the install token's lifetime (and the code's): release cannot restore the code.
    t.clock.advance(2 * 3600);
    const released = await releaseRequest(t, activationId, { address: '192.0.2.44' });
    expect((await released.json()).data.install_code_restored).toBe(false);
    expect((await watched(browser)).items[0]).toMatchObject({
      status: 'released',
      usable: false,
      machine: { hostname: 'vpn1.example.net' },
    });
  });

  it('shows an unused code past its expiry as expired, prechecked or not', async () => {
    const browser = await newBrowser(t);
    const first = await issue(t, browser);
    t.clock.advance(1);
    const second = await issue(t, browser);
    expect((await precheckRequest(t, second.code)).status).toBe(200);
    t.clock.advance(15 * 60);
    const { items } = await watched(browser);
    expect(items.map((i) => [i.install_code_hint, i.status, i.usable])).toEqual([
      [second.hint, 'expired', false],
      [first.hint, 'expired', false],
    ]);
  });

  it('lists only the codes of the asking session, newest first', async () => {
    const alice = await newBrowser(t);
    const bob = await newBrowser(t);
    const a1 = await issue(t, alice);
    t.clock.advance(1);
    const a2 = await issue(t, alice);
    const b1 = await issue(t, bob);
    expect((await watched(alice)).items.map((i) => i.install_code_hint)).toEqual([a2.hint, a1.hint]);
    expect((await watched(bob)).items.map((i) => i.install_code_hint)).toEqual([b1.hint]);
    expect((await watched(await newBrowser(t))).items).toEqual([]);
  });

  it('refuses without a valid session and from another site', async () => {
    const browser = await newBrowser(t);
    await issue(t, browser);
    await expectError(await t.request(STATUS_PATH), 403, 'browser_session_required');
    await expectError(
      await statusRequest(t, { ...browser, cookie: 'slowdns_browser=not-a-session' }),
      403,
      'browser_session_required',
    );
    await expectError(await statusRequest(t, browser, { 'sec-fetch-site': 'cross-site' }), 403, 'cross_site_request');
    await expectError(await statusRequest(t, browser, { origin: 'https://evil.example' }), 403, 'cross_site_request');
    t.clock.advance(86400);
    await expectError(await statusRequest(t, browser), 403, 'browser_session_required');
  });
});
