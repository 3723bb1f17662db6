import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/config-error.js';
import { consoleSessions, oidcFlows } from '../../src/db/schema.js';
import { OIDC_FLOW_SECONDS } from '../../src/domain/operators/oidc-flows.js';
import { startFakeOidcIssuer, type FakeIdToken, type FakeOidcIssuer } from '../support/fake-oidc-issuer.js';
import { openSecondInstance, useTestApp, type TestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, postForm } from './console-support.js';

const CLIENT_ID = 'slowdns-console';

/** The console set to sign in with a loopback issuer (the two switches open http and loopback for it). */
const env: Record<string, string> = {
  ADMIN_TOKEN,
  OIDC_CLIENT_ID: CLIENT_ID,
  OIDC_CLIENT_SECRET: 'fake-issuer-secret',
  OIDC_ROLES: JSON.stringify({ 'slowdns-admins': 'root' }),
  IDENTITY_ISSUER_ALLOW_HTTP: 'true',
  IDENTITY_ISSUER_ALLOW_PRIVATE: 'true',
};

/** A sign-in started as the console's button starts it: the flow's cookie, and the state and nonce sent to the provider. */
async function startSignIn(t: TestApp): Promise<{ cookie: string; state: string; nonce: string; location: URL }> {
  const res = await t.request('/admin/sign-in/oidc');
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get('location')!);
  const setCookie = res.headers.get('set-cookie')!;
  expect(setCookie).toMatch(/^slowdns_oidc_flow=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax$/);
  return {
    cookie: setCookie.split(';')[0]!,
    state: location.searchParams.get('state')!,
    nonce: location.searchParams.get('nonce')!,
    location,
  };
}

async function callback(t: TestApp, cookie: string | undefined, query: Record<string, string>) {
  const res = await t.request(`/admin/sign-in/callback?${new URLSearchParams(query)}`, {
    headers: cookie ? { cookie } : {},
  });
  const html = await res.text();
  return { status: res.status, reason: /data-reason="([a-z_]+)"/.exec(html)?.[1], res, html };
}

async function sessionCount(t: TestApp): Promise<number> {
  return (await t.database.db.select().from(consoleSessions)).length;
}

describe('a sign-in with the identity provider that cannot be trusted opens no session', () => {
  let fake: FakeOidcIssuer;
  beforeAll(async () => {
    fake = await startFakeOidcIssuer(CLIENT_ID);
    env.OIDC_ISSUER = fake.issuer;
  });
  afterAll(() => fake.close());
  const t = useTestApp(env);

  it('starts with PKCE S256, state and nonce, keeping the flow as one row behind the hash of its cookie', async () => {
    const { location, cookie } = await startSignIn(t);
    expect({
      origin: location.origin,
      response_type: location.searchParams.get('response_type'),
      method: location.searchParams.get('code_challenge_method'),
      redirect: location.searchParams.get('redirect_uri'),
      scope: location.searchParams.get('scope'),
    }).toEqual({
      origin: fake.issuer,
      response_type: 'code',
      method: 'S256',
      redirect: 'http://localhost:8080/admin/sign-in/callback',
      scope: 'openid profile email',
    });
    const rows = await t.database.db.select().from(oidcFlows);
    expect(rows.length).toBe(1);
    expect(JSON.stringify(rows)).not.toContain(cookie.split('=')[1]);
  });

  it('signs in with a good ID token: 200, a same-origin refresh to /admin, a fresh Strict session of OIDC_SESSION_HOURS, the flow used up', async () => {
    const flow = await startSignIn(t);
    fake.next('good', flow.nonce);
    const answer = await callback(t, flow.cookie, { code: 'any', state: flow.state });
    expect(answer.status).toBe(200);
    expect(answer.res.headers.get('refresh')).toBe('0; url=/admin');
    const cookies = answer.res.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith('slowdns_console='))).toMatch(
      /Max-Age=3600; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    const [row] = await t.database.db.select().from(consoleSessions);
    expect({ operator: row!.operator, scope: row!.scope, issuer: row!.oidcIssuer, sub: row!.oidcSubject }).toEqual({
      operator: 'eve@example.com',
      scope: 'root',
      issuer: fake.issuer,
      sub: 'eve',
    });
    expect(await t.database.db.select().from(oidcFlows)).toEqual([]);
    const again = await callback(t, flow.cookie, { code: 'any', state: flow.state });
    expect({ status: again.status, reason: again.reason }).toEqual({ status: 400, reason: 'no_flow' });
  });

  for (const kind of ['other-key', 'other-issuer', 'expired'] as FakeIdToken[]) {
    it(`refuses an ID token ${kind === 'other-key' ? 'signed by a key not in the JWKS' : kind === 'other-issuer' ? 'from another issuer' : 'past its expiry'} (401, a page, no session)`, async () => {
      const flow = await startSignIn(t);
      fake.next(kind, flow.nonce);
      const answer = await callback(t, flow.cookie, { code: 'any', state: flow.state });
      expect({ status: answer.status, reason: answer.reason, sessions: await sessionCount(t) }).toEqual({
        status: 401,
        reason: 'id_token',
        sessions: 0,
      });
      expect(answer.res.headers.get('set-cookie')).not.toContain('slowdns_console=');
    });
  }

  it('refuses an ID token whose nonce is not the flow’s (401, no session)', async () => {
    const flow = await startSignIn(t);
    fake.next('good', 'a-nonce-of-another-sign-in');
    const answer = await callback(t, flow.cookie, { code: 'any', state: flow.state });
    expect({ status: answer.status, reason: answer.reason, sessions: await sessionCount(t) }).toEqual({
      status: 401,
      reason: 'id_token',
      sessions: 0,
    });
  });

  it('refuses a tampered state (400), and the flow cannot be tried again', async () => {
    const flow = await startSignIn(t);
    fake.next('good', flow.nonce);
    const answer = await callback(t, flow.cookie, { code: 'any', state: `${flow.state}x` });
    expect({ status: answer.status, reason: answer.reason, sessions: await sessionCount(t) }).toEqual({
      status: 400,
      reason: 'state',
      sessions: 0,
    });
    const retry = await callback(t, flow.cookie, { code: 'any', state: flow.state });
    expect({ status: retry.status, reason: retry.reason }).toEqual({ status: 400, reason: 'no_flow' });
  });

  it('refuses the callback opened without a flow, and with a flow older than 10 minutes (400)', async () => {
    const none = await callback(t, undefined, { code: 'any', state: 'any' });
    expect({ status: none.status, reason: none.reason }).toEqual({ status: 400, reason: 'no_flow' });
    const flow = await startSignIn(t);
    fake.next('good', flow.nonce);
    t.clock.advance(OIDC_FLOW_SECONDS + 1);
    const late = await callback(t, flow.cookie, { code: 'any', state: flow.state });
    expect({ status: late.status, reason: late.reason, sessions: await sessionCount(t) }).toEqual({
      status: 400,
      reason: 'no_flow',
      sessions: 0,
    });
  });

  it('answers 503 with Retry-After when the provider cannot be reached, and keeps no flow', async () => {
    const down = await openSecondInstance(t, { ...env, OIDC_ISSUER: 'http://127.0.0.1:9' });
    try {
      const res = await down.app.request('/admin/sign-in/oidc');
      const html = await res.text();
      expect({
        status: res.status,
        retry: res.headers.get('retry-after'),
        reason: /data-reason="([a-z_]+)"/.exec(html)?.[1],
      }).toEqual({
        status: 503,
        retry: '60',
        reason: 'unavailable',
      });
      expect(await t.database.db.select().from(oidcFlows)).toEqual([]);
    } finally {
      await down.close();
    }
  });

  it('offers the identity provider on the sign-in page, beside the token form', async () => {
    const html = await (await t.request('/admin')).text();
    expect(html).toContain('href="/admin/sign-in/oidc"');
    expect(html).toContain('action="/admin/sign-in"');
  });

  it('refuses token sign-in on the server with CONSOLE_TOKEN_SIGN_IN=false, even ADMIN_TOKEN, and shows no token form', async () => {
    const ssoOnly = await openSecondInstance(t, { ...env, CONSOLE_TOKEN_SIGN_IN: 'false' });
    try {
      const res = await postForm(ssoOnly.app, '/admin/sign-in', { token: ADMIN_TOKEN });
      expect({ status: res.status, cookie: res.headers.get('set-cookie'), sessions: await sessionCount(t) }).toEqual({
        status: 403,
        cookie: null,
        sessions: 0,
      });
      const html = await (await ssoOnly.app.request('/admin')).text();
      expect({ sso: html.includes('/admin/sign-in/oidc'), form: html.includes('action="/admin/sign-in"') }).toEqual({
        sso: true,
        form: false,
      });
    } finally {
      await ssoOnly.close();
    }
  });
});

describe('the sign-in settings are checked at start, each refusal one line naming its variable', () => {
  const base = { OIDC_CLIENT_ID: 'c', OIDC_ROLES: '{"ops":"write"}' };
  const cases: [string, Record<string, string>, RegExp][] = [
    ['http issuer', { ...base, OIDC_ISSUER: 'http://id.example.com' }, /^invalid OIDC_ISSUER: must be https/],
    [
      'loopback issuer',
      { ...base, OIDC_ISSUER: 'https://127.0.0.1:8443' },
      /^invalid OIDC_ISSUER: .*IDENTITY_ISSUER_ALLOW_PRIVATE/,
    ],
    [
      'no client id',
      { OIDC_ISSUER: 'https://id.example.com', OIDC_ROLES: '{"a":"read"}' },
      /^invalid OIDC_CLIENT_ID: required/,
    ],
    ['no roles', { OIDC_ISSUER: 'https://id.example.com', OIDC_CLIENT_ID: 'c' }, /^invalid OIDC_ROLES: required/],
    [
      'roles not JSON',
      { ...base, OIDC_ISSUER: 'https://id.example.com', OIDC_ROLES: 'ops=write' },
      /^invalid OIDC_ROLES: must be JSON/,
    ],
    [
      'a role above root',
      { ...base, OIDC_ISSUER: 'https://id.example.com', OIDC_ROLES: '{"ops":"admin"}' },
      /^invalid OIDC_ROLES: the role of "ops"/,
    ],
    [
      'scopes without openid',
      { ...base, OIDC_ISSUER: 'https://id.example.com', OIDC_SCOPES: 'email' },
      /^invalid OIDC_SCOPES: must include openid$/,
    ],
    [
      'session hours',
      { ...base, OIDC_ISSUER: 'https://id.example.com', OIDC_SESSION_HOURS: '0' },
      /^invalid OIDC_SESSION_HOURS: /,
    ],
    ['a client id without an issuer', { OIDC_CLIENT_ID: 'c' }, /^invalid OIDC_CLIENT_ID: set OIDC_ISSUER too/],
    [
      'token sign-in off without an issuer',
      { CONSOLE_TOKEN_SIGN_IN: 'false' },
      /^invalid CONSOLE_TOKEN_SIGN_IN: false needs OIDC_ISSUER/,
    ],
    [
      'a console URL with a path',
      { CONSOLE_PUBLIC_URL: 'https://c.example.com/admin' },
      /^invalid CONSOLE_PUBLIC_URL: must be an origin only/,
    ],
  ];
  for (const [name, settings, message] of cases)
    it(`refuses ${name}`, () => {
      expect(() => loadConfig(settings)).toThrow(ConfigError);
      expect(() => loadConfig(settings)).toThrow(message);
      expect(() => loadConfig(settings)).toThrow(/^[^\n]+$/);
    });

  it('accepts a loopback http issuer under both switches, and takes CONSOLE_PUBLIC_URL for the redirect URI', () => {
    const config = loadConfig({
      ...base,
      OIDC_ISSUER: 'http://127.0.0.1:9000',
      IDENTITY_ISSUER_ALLOW_HTTP: 'true',
      IDENTITY_ISSUER_ALLOW_PRIVATE: 'true',
      CONSOLE_PUBLIC_URL: 'https://console.example.com',
    });
    expect({
      issuer: config.oidc?.issuer.href,
      hours: config.oidc?.sessionSeconds,
      url: config.consolePublicUrl.href,
    }).toEqual({
      issuer: 'http://127.0.0.1:9000/',
      hours: 3600,
      url: 'https://console.example.com/',
    });
  });
});
