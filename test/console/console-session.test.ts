import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, consoleSessions, events, webhookDeliveries } from '../../src/db/schema.js';
import { CONSOLE_IDLE_SECONDS, CONSOLE_MAX_SECONDS } from '../../src/domain/operators/console-sessions.js';
import { activatedInstall } from '../support/install-flow.js';
import { openSecondInstance, postJson, useTestApp } from '../support/test-app.js';
import { setOverride } from '../rate-limits/override-support.js';
import { ADMIN_TOKEN, consolePage, formTokenOf, mintToken, postForm, signIn } from './console-support.js';

describe('the console signs an operator in with a token, into a session of its own', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('answers the sign-in form, and nothing of the fleet, without a session', async () => {
    await activatedInstall(t);
    for (const path of ['/admin', '/admin/activations', '/admin/events', '/admin/webhooks']) {
      const res = await t.request(path);
      const html = await res.text();
      expect({
        path,
        status: res.status,
        form: html.includes('action="/admin/sign-in"'),
        host: html.includes('act_'),
      }).toEqual({ path, status: path === '/admin' ? 200 : 401, form: true, host: false });
    }
  });

  it('answers without a session are no-store, with the console CSP', async () => {
    for (const path of ['/admin', '/admin/activations', '/admin/events', '/admin/webhooks']) {
      const res = await t.request(path);
      expect({ path, cache: res.headers.get('cache-control') }).toEqual({ path, cache: 'no-store' });
      expect(res.headers.get('content-security-policy')).toContain("form-action 'self'");
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    }
  });

  it('signs in with a named token: a session tied to its name and scope, the cookie kept only as its hash, the token nowhere in the page', async () => {
    const { token } = await mintToken(t, 'support-desk', 'write');
    const res = await postForm(t, '/admin/sign-in', { token });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin');
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^slowdns_console=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
    const cookieValue = setCookie.split(';')[0]!.split('=')[1]!;
    const [row] = await t.database.db.select().from(consoleSessions);
    expect({ operator: row!.operator, scope: row!.scope, stored: JSON.stringify(row).includes(cookieValue) }).toEqual({
      operator: 'support-desk',
      scope: 'write',
      stored: false,
    });
    const page = await consolePage(t, '/admin', setCookie.split(';')[0]!);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Signed in as <strong>support-desk</strong>');
    expect(page.html).not.toContain(token);
    expect(page.res.headers.get('cache-control')).toBe('no-store');
  });

  it('signs ADMIN_TOKEN in as root with the write scope', async () => {
    const page = await consolePage(t, '/admin', await signIn(t, ADMIN_TOKEN));
    expect(page.html).toContain('Signed in as <strong>root</strong> <span class="scope" data-scope="write">');
  });

  it('answers a wrong token with the form again (401, in words), slowed, counted, and opens no session', async () => {
    const res = await postForm(t, '/admin/sign-in', { token: 'sdo_not-a-token' });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('That token was not accepted');
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await t.database.db.select().from(consoleSessions)).toEqual([]);
  });

  it('limits refused sign-ins per address: over the limit, an HTML page with the wait, and even the right token is refused', async () => {
    await setOverride(t, { subject: 'ip', value: '203.0.113.10', limit_name: 'console-sign-in-ip-hour', limit: 2 });
    for (let i = 0; i < 2; i++) expect((await postForm(t, '/admin/sign-in', { token: `wrong-${i}` })).status).toBe(401);
    const refused = await postForm(t, '/admin/sign-in', { token: ADMIN_TOKEN });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('3600');
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await refused.text();
    expect(html).toContain('Try again in 1 hour');
    expect(html).toContain('11:00 UTC');
    expect(refused.headers.get('set-cookie')).toBeNull();
    expect(await t.database.db.select().from(consoleSessions)).toEqual([]);
    // Another address is not held back.
    expect((await postForm(t, '/admin/sign-in', { token: ADMIN_TOKEN }, {}, '198.51.100.7')).status).toBe(303);
  });

  it('counts before it checks: in a burst of 40 wrong tokens with the right one last, 10 are evaluated and the right one is refused', async () => {
    const burst = [...Array.from({ length: 40 }, (_, i) => `sdo_wrong-${i}`), ADMIN_TOKEN];
    const answers = await Promise.all(burst.map((token) => postForm(t, '/admin/sign-in', { token }, {}, '192.0.2.77')));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(31);
    expect(statuses.at(-1)).toBe(429);
    expect(await t.database.db.select().from(consoleSessions)).toEqual([]);
  });

  it('refuses a sign-in posted from another site', async () => {
    const res = await postForm(
      t,
      '/admin/sign-in',
      { token: ADMIN_TOKEN },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await t.database.db.select().from(consoleSessions)).toEqual([]);
  });

  it('ends a session idle for longer than the idle timeout, and one older than the absolute timeout however used', async () => {
    const idle = await signIn(t, ADMIN_TOKEN);
    t.clock.advance(CONSOLE_IDLE_SECONDS - 60);
    expect((await consolePage(t, '/admin', idle)).html).toContain('Signed in as');
    t.clock.advance(CONSOLE_IDLE_SECONDS + 1);
    const ended = await consolePage(t, '/admin/activations', idle);
    expect(ended.status).toBe(401);
    expect(ended.html).toContain('Your session has ended');
    expect(ended.res.headers.get('set-cookie')).toMatch(/^slowdns_console=; Max-Age=0/);

    const busy = await signIn(t, ADMIN_TOKEN);
    for (let used = 0; used < CONSOLE_MAX_SECONDS - CONSOLE_IDLE_SECONDS; used += CONSOLE_IDLE_SECONDS / 2) {
      t.clock.advance(CONSOLE_IDLE_SECONDS / 2);
      expect((await consolePage(t, '/admin', busy)).html).toContain('Signed in as');
    }
    t.clock.advance(CONSOLE_IDLE_SECONDS);
    expect((await consolePage(t, '/admin', busy)).html).toContain('Your session has ended');
  });

  it('ends the sessions of a token when it is revoked', async () => {
    const { id, token } = await mintToken(t, 'night-shift', 'read');
    const cookie = await signIn(t, token);
    expect((await consolePage(t, '/admin', cookie)).html).toContain('night-shift');
    const revoke = await t.request(`/api/v2/admin/tokens/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(revoke.status).toBe(200);
    const after = await consolePage(t, '/admin', cookie);
    expect(after.html).not.toContain('night-shift');
    expect(after.html).toContain('Your session has ended');
  });

  it('signs out: the session is gone and its cookie opens nothing', async () => {
    const cookie = await signIn(t, ADMIN_TOKEN);
    const out = await postForm(t, '/admin/sign-out', { form_token: await formTokenOf(t, cookie) }, { cookie });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/admin?signed_out=1');
    expect(await t.database.db.select().from(consoleSessions)).toEqual([]);
    expect((await consolePage(t, '/admin', cookie)).html).not.toContain('Signed in as');
  });
});

describe('console actions: a write-scope session, from a console page of that same session, or nothing changes', () => {
  const t = useTestApp({ ADMIN_TOKEN, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
  const activationOf = async (id: string) =>
    (await t.database.db.select().from(activations).where(eq(activations.id, id)))[0]!;
  const eventCount = async () => (await t.database.db.select().from(events)).length;

  it('releases an activation with a reason that lands in the event with the operator name', async () => {
    const { activationId } = await activatedInstall(t);
    const { token } = await mintToken(t, 'alice', 'write');
    const cookie = await signIn(t, token);
    const res = await postForm(
      t,
      `/admin/activations/${activationId}/release`,
      { form_token: await formTokenOf(t, cookie), reason: 'Ticket 77: customer asked' },
      { cookie },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/admin/activations/${activationId}?done=released`);
    expect((await activationOf(activationId)).status).toBe('released');
    const [released] = await t.database.db.select().from(events).where(eq(events.type, 'activation.released'));
    expect(released!.data).toMatchObject({
      operator: 'alice',
      reason: 'Ticket 77: customer asked',
      released_by: 'operator',
    });
    const page = await consolePage(t, `/admin/activations/${activationId}?done=released`, cookie);
    expect(page.html).toContain(
      '<span class="operator">by alice</span> <q class="reason">Ticket 77: customer asked</q>',
    );
  });

  it('refuses a cross-site action, a form token of another session, none at all, and a missing reason', async () => {
    const { activationId } = await activatedInstall(t);
    const mine = await signIn(t, ADMIN_TOKEN);
    const other = await signIn(t, ADMIN_TOKEN);
    const before = await eventCount();
    const path = `/admin/activations/${activationId}/release`;
    const attempts = {
      crossSite: await postForm(
        t,
        path,
        { form_token: await formTokenOf(t, mine), reason: 'x' },
        { cookie: mine, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      ),
      otherSession: await postForm(t, path, { form_token: await formTokenOf(t, other), reason: 'x' }, { cookie: mine }),
      noToken: await postForm(t, path, { reason: 'x' }, { cookie: mine }),
      noReason: await postForm(t, path, { form_token: await formTokenOf(t, mine), reason: '  ' }, { cookie: mine }),
    };
    expect(Object.fromEntries(Object.entries(attempts).map(([k, r]) => [k, r.status]))).toEqual({
      crossSite: 403,
      otherSession: 403,
      noToken: 403,
      noReason: 400,
    });
    expect(await attempts.otherSession.text()).toContain('does not belong to your session');
    expect((await activationOf(activationId)).status).toBe('activated');
    expect(await eventCount()).toBe(before);
  });

  it('shows a read-scope session no action, and refuses its forged POST', async () => {
    const { activationId } = await activatedInstall(t);
    const { token } = await mintToken(t, 'viewer', 'read');
    const cookie = await signIn(t, token);
    const page = await consolePage(t, `/admin/activations/${activationId}`, cookie);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('/release"');
    expect(page.html).toContain('read-only token');
    const forged = await postForm(
      t,
      `/admin/activations/${activationId}/release`,
      { form_token: await formTokenOf(t, cookie), reason: 'forged' },
      { cookie },
    );
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('read-only token');
    expect((await activationOf(activationId)).status).toBe('activated');
  });

  it('shows webhook endpoints with their deliveries and replays one (write scope)', async () => {
    const endpoint = await t.request(
      '/api/v2/admin/webhooks',
      postJson({ url: 'http://127.0.0.1:9/hooks', events: ['*'] }, { authorization: `Bearer ${ADMIN_TOKEN}` }),
    );
    expect(endpoint.status).toBe(201);
    const test = await t.request(`/api/v2/admin/webhooks/${(await endpoint.json()).data.webhook_id}/test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(test.status).toBe(202);
    const [delivery] = await t.database.db.select().from(webhookDeliveries);
    await t.database.db
      .update(webhookDeliveries)
      .set({ status: 'failed', attempts: 8 })
      .where(eq(webhookDeliveries.id, delivery!.id));
    const cookie = await signIn(t, ADMIN_TOKEN);
    const page = await consolePage(t, '/admin/webhooks', cookie);
    expect(page.html).toContain('127.0.0.1:9');
    expect(page.html).toContain(`/admin/webhook-deliveries/${delivery!.id}/replay`);
    const replay = await postForm(
      t,
      `/admin/webhook-deliveries/${delivery!.id}/replay`,
      { form_token: await formTokenOf(t, cookie) },
      { cookie },
    );
    expect(replay.status).toBe(303);
    const [after] = await t.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery!.id));
    expect({ status: after!.status, attempts: after!.attempts }).toEqual({ status: 'pending', attempts: 0 });
  });

  it('refuses an action without a session, with the sign-in form', async () => {
    const { activationId } = await activatedInstall(t);
    const res = await postForm(t, `/admin/activations/${activationId}/release`, { reason: 'x' });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('action="/admin/sign-in"');
    expect((await activationOf(activationId)).status).toBe('activated');
  });

  it('answers an unknown id and a bad filter as pages (404, 400), escaping what it echoes', async () => {
    const cookie = await signIn(t, ADMIN_TOKEN);
    const missing = await consolePage(t, '/admin/activations/act_%3Cb%3E', cookie);
    expect(missing.status).toBe(404);
    expect(missing.html).toContain('act_&lt;b&gt;');
    expect((await consolePage(t, '/admin/codes?status=bogus', cookie)).status).toBe(400);
    expect((await consolePage(t, '/admin/events?cursor=nonsense', cookie)).status).toBe(400);
  });
});

describe('the console on https', () => {
  const t = useTestApp({ ADMIN_TOKEN, PUBLIC_BASE_URL: 'https://activate.example.net' });

  it('names its cookie __Host- and makes it Secure', async () => {
    const res = await postForm(t, '/admin/sign-in', { token: ADMIN_TOKEN });
    expect(res.headers.get('set-cookie')).toMatch(
      /^__Host-slowdns_console=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
  });

  it('takes its cookie’s security from CONSOLE_PUBLIC_URL: a console on http beside the https service, and the reverse', async () => {
    for (const [settings, cookie] of [
      [
        { CONSOLE_PUBLIC_URL: 'http://lab.example.net:9091' },
        /^slowdns_console=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/,
      ],
      [
        { PUBLIC_BASE_URL: 'http://activate.example.net', CONSOLE_PUBLIC_URL: 'https://console.example.net' },
        /^__Host-slowdns_console=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
      ],
    ] as const) {
      const other = await openSecondInstance(t, {
        ADMIN_TOKEN,
        PUBLIC_BASE_URL: 'https://activate.example.net',
        ...settings,
      });
      try {
        const res = await postForm(other.app, '/admin/sign-in', { token: ADMIN_TOKEN });
        const setCookie = res.headers.get('set-cookie')!;
        expect(setCookie).toMatch(cookie);
        const session = setCookie.split(';')[0]!;
        expect((await consolePage(other.app, '/admin', session)).html).toContain('Signed in as');
        const out = await postForm(
          other.app,
          '/admin/sign-out',
          { form_token: await formTokenOf(other.app, session) },
          { cookie: session },
        );
        expect(out.headers.get('set-cookie')).toMatch(new RegExp(`^${session.split('=')[0]}=;`));
      } finally {
        await other.close();
      }
    }
  });
});

describe('the console on a listener of its own (CONSOLE_PORT)', () => {
  const t = useTestApp({ ADMIN_TOKEN, CONSOLE_PORT: '9091' });

  it('is not on the main listener, and is on its own', async () => {
    expect((await t.request('/admin')).status).toBe(404);
    const own = await t.consoleApp!.request('/admin');
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('action="/admin/sign-in"');
  });
});
