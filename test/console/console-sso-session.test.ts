import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activations, consoleSessions, events } from '../../src/db/schema.js';
import { CONSOLE_IDLE_SECONDS } from '../../src/domain/operators/console-sessions.js';
import { startFakeOidcIssuer, type FakeOidcIssuer } from '../support/fake-oidc-issuer.js';
import { activatedInstall } from '../support/install-flow.js';
import { openSecondInstance, useTestApp, type TestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, consolePage, formTokenOf, postForm, signIn } from './console-support.js';

const CLIENT_ID = 'slowdns-console';

const env: Record<string, string> = {
  ADMIN_TOKEN,
  OIDC_CLIENT_ID: CLIENT_ID,
  OIDC_CLIENT_SECRET: 'fake-issuer-secret',
  OIDC_ROLES: JSON.stringify({ 'slowdns-admins': 'root' }),
  OIDC_SESSION_HOURS: '2',
  IDENTITY_ISSUER_ALLOW_HTTP: 'true',
  IDENTITY_ISSUER_ALLOW_PRIVATE: 'true',
};

/** Signs a person in through the issuer (a good ID token, groups: slowdns-admins): the session's cookie header value. */
async function ssoSignIn(t: TestApp, fake: FakeOidcIssuer, headers: Record<string, string> = {}): Promise<string> {
  const started = await t.request('/admin/sign-in/oidc', { headers });
  const flowCookie = started.headers.get('set-cookie')!.split(';')[0]!;
  const authorize = new URL(started.headers.get('location')!);
  fake.next('good', authorize.searchParams.get('nonce')!);
  const query = new URLSearchParams({ code: 'any', state: authorize.searchParams.get('state')! });
  const cookie = [flowCookie, headers.cookie].filter(Boolean).join('; ');
  const res = await t.request(`/admin/sign-in/callback?${query}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return res.headers
    .getSetCookie()
    .find((c) => c.startsWith('slowdns_console='))!
    .split(';')[0]!;
}

describe('the session rules of the console (DESIGN §18) hold for a session opened by the identity provider', () => {
  let fake: FakeOidcIssuer;
  beforeAll(async () => {
    fake = await startFakeOidcIssuer(CLIENT_ID);
    env.OIDC_ISSUER = fake.issuer;
  });
  afterAll(() => fake.close());
  const t = useTestApp(env);
  const activationOf = async (id: string) =>
    (await t.database.db.select().from(activations).where(eq(activations.id, id)))[0]!;

  it('shows the person in the header, with the issuer and the root role', async () => {
    const page = await consolePage(t, '/admin', await ssoSignIn(t, fake));
    expect(page.html).toContain(
      'Signed in as <strong>eve@example.com</strong> <span class="fine-print">via 127.0.0.1:',
    );
    expect(page.html).toContain('<span class="scope" data-scope="root">root</span>');
    expect(page.res.headers.get('content-security-policy')).toContain(`form-action 'self' ${fake.issuer}`);
  });

  it('releases with a reason: the event names the person by email, with the issuer', async () => {
    const { activationId } = await activatedInstall(t);
    const cookie = await ssoSignIn(t, fake);
    const res = await postForm(
      t,
      `/admin/activations/${activationId}/release`,
      { form_token: await formTokenOf(t, cookie), reason: 'Ticket 9' },
      { cookie },
    );
    expect(res.status).toBe(303);
    const [released] = await t.database.db.select().from(events).where(eq(events.type, 'activation.released'));
    expect(released!.data).toMatchObject({
      operator: 'eve@example.com',
      operator_issuer: fake.issuer,
      reason: 'Ticket 9',
    });
  });

  it('refuses a cross-site action, a form token of another session, none at all: nothing changes', async () => {
    const { activationId } = await activatedInstall(t);
    const mine = await ssoSignIn(t, fake);
    const other = await ssoSignIn(t, fake);
    const path = `/admin/activations/${activationId}/release`;
    const statuses = [
      (
        await postForm(
          t,
          path,
          { form_token: await formTokenOf(t, mine), reason: 'x' },
          { cookie: mine, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
        )
      ).status,
      (await postForm(t, path, { form_token: await formTokenOf(t, other), reason: 'x' }, { cookie: mine })).status,
      (await postForm(t, path, { reason: 'x' }, { cookie: mine })).status,
    ];
    expect(statuses).toEqual([403, 403, 403]);
    expect((await activationOf(activationId)).status).toBe('activated');
  });

  it('mints a fresh session id at the callback: a session the browser had is ended, not reused', async () => {
    const before = await signIn(t, ADMIN_TOKEN);
    const after = await ssoSignIn(t, fake, { cookie: before });
    expect(after).not.toBe(before);
    expect((await consolePage(t, '/admin', before)).html).not.toContain('Signed in as');
    expect((await t.database.db.select().from(consoleSessions)).length).toBe(1);
  });

  it('ends a session idle too long, and one past OIDC_SESSION_HOURS however used', async () => {
    const idle = await ssoSignIn(t, fake);
    t.clock.advance(CONSOLE_IDLE_SECONDS + 1);
    expect((await consolePage(t, '/admin', idle)).html).toContain('Your session has ended');
    const busy = await ssoSignIn(t, fake);
    for (let used = 0; used < 2 * 3600 - CONSOLE_IDLE_SECONDS; used += CONSOLE_IDLE_SECONDS / 2) {
      t.clock.advance(CONSOLE_IDLE_SECONDS / 2);
      expect((await consolePage(t, '/admin', busy)).html).toContain('Signed in as');
    }
    t.clock.advance(CONSOLE_IDLE_SECONDS);
    expect((await consolePage(t, '/admin', busy)).html).toContain('Your session has ended');
  });

  it('signs out only with the session’s form token, then sends the person to the provider or back signed out', async () => {
    const cookie = await ssoSignIn(t, fake);
    const forged = await postForm(t, '/admin/sign-out', {}, { cookie });
    expect(forged.status).toBe(403);
    const out = await postForm(t, '/admin/sign-out', { form_token: await formTokenOf(t, cookie) }, { cookie });
    // This issuer offers no end_session_endpoint: only the console's session ends.
    expect({ status: out.status, location: out.headers.get('location') }).toEqual({
      status: 303,
      location: '/admin?signed_out=1',
    });
    expect(await t.database.db.select().from(consoleSessions)).toEqual([]);
  });

  it('sends the person to a provider’s sign-out on another origin, which the CSP admits once discovery named it', async () => {
    const elsewhere = await startFakeOidcIssuer(CLIENT_ID, { signOutElsewhere: true });
    const other = await openSecondInstance(t, { ...env, OIDC_ISSUER: elsewhere.issuer });
    try {
      const signOutOrigin = new URL(elsewhere.endSession!).origin;
      expect(signOutOrigin).not.toBe(elsewhere.issuer);
      const cookie = await ssoSignIn(other.app, elsewhere);
      const page = await consolePage(other.app, '/admin', cookie);
      expect(page.res.headers.get('content-security-policy')).toContain(
        `form-action 'self' ${elsewhere.issuer} ${signOutOrigin};`,
      );
      const out = await postForm(
        other.app,
        '/admin/sign-out',
        { form_token: await formTokenOf(other.app, cookie) },
        { cookie },
      );
      const location = new URL(out.headers.get('location')!);
      expect({
        status: out.status,
        at: `${location.origin}${location.pathname}`,
        client: location.searchParams.get('client_id'),
        back: location.searchParams.get('post_logout_redirect_uri'),
      }).toEqual({
        status: 303,
        at: elsewhere.endSession,
        client: CLIENT_ID,
        back: 'http://localhost:8080/admin?signed_out=1',
      });
    } finally {
      await other.close();
      await elsewhere.close();
    }
  });

  // A console on its own http port in a lab while the service is https, and an https console beside an http service.
  for (const [publicBaseUrl, consoleUrl, prefix, secure] of [
    ['https://activate.example.net', 'http://127.0.0.1:9091', '', false],
    ['http://activate.example.net', 'https://console.example.net', '__Host-', true],
  ] as const)
    it(`takes both cookies’ security from CONSOLE_PUBLIC_URL (${consoleUrl}), not PUBLIC_BASE_URL (${publicBaseUrl})`, async () => {
      const other = await openSecondInstance(t, {
        ...env,
        PUBLIC_BASE_URL: publicBaseUrl,
        CONSOLE_PUBLIC_URL: consoleUrl,
      });
      try {
        const started = await other.app.request('/admin/sign-in/oidc');
        const flow = started.headers.get('set-cookie')!;
        const authorize = new URL(started.headers.get('location')!);
        fake.next('good', authorize.searchParams.get('nonce')!);
        const query = new URLSearchParams({ code: 'any', state: authorize.searchParams.get('state')! });
        const done = await other.app.request(`/admin/sign-in/callback?${query}`, {
          headers: { cookie: flow.split(';')[0]! },
        });
        const session = done.headers.getSetCookie().find((c) => c.includes('slowdns_console='))!;
        expect({
          flow: flow.startsWith(`${prefix}slowdns_oidc_flow=`),
          flowSecure: flow.includes('; Secure'),
          session: session.startsWith(`${prefix}slowdns_console=`),
          sessionSecure: session.includes('; Secure'),
        }).toEqual({ flow: true, flowSecure: secure, session: true, sessionSecure: secure });
        expect((await consolePage(other.app, '/admin', session.split(';')[0]!)).html).toContain('Signed in as');
      } finally {
        await other.close();
      }
    });

  it('lets a root operator see the live sessions and end another person’s', async () => {
    const root = await ssoSignIn(t, fake);
    const victim = await signIn(t, ADMIN_TOKEN);
    const page = await consolePage(t, '/admin/operators', root);
    expect(page.status).toBe(200);
    expect(page.html).toContain('ADMIN_TOKEN');
    const row = page.html.split('<tr>').find((r) => r.includes('ADMIN_TOKEN'))!;
    const handle = /\/admin\/operators\/sessions\/([0-9a-f]{24})\/end/.exec(row)![1]!;
    const res = await postForm(
      t,
      `/admin/operators/sessions/${handle}/end`,
      { form_token: await formTokenOf(t, root) },
      { cookie: root },
    );
    expect(res.status).toBe(303);
    expect((await consolePage(t, '/admin', root)).html).toContain('Signed in as');
    const again = await postForm(
      t,
      `/admin/operators/sessions/${handle}/end`,
      { form_token: await formTokenOf(t, root) },
      { cookie: root },
    );
    expect(again.status).toBe(404);
    expect((await consolePage(t, '/admin', victim)).html).not.toContain('Signed in as');
  });

  it('refuses the operators page and its forms to a session that is not root', async () => {
    const writer = await signIn(t, ADMIN_TOKEN);
    expect((await consolePage(t, '/admin/operators', writer)).status).toBe(403);
    const res = await postForm(
      t,
      '/admin/operators/tokens',
      { form_token: await formTokenOf(t, writer), name: 'x', scope: 'read', expires_in_days: '1' },
      { cookie: writer },
    );
    expect(res.status).toBe(403);
  });
});
