import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, events, installCodes } from '../../src/db/schema.js';
import {
  activateRequest,
  cancelRequest,
  confirmRequest,
  expectError,
  expectRefusal,
  issue,
  newBrowser,
  precheckRequest,
  releaseRequest,
} from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';

const t = useTestApp();
const CANCEL_PATH = '/api/v2/slowdns/code/cancel';

async function precheckToken(code: string): Promise<string> {
  const res = await precheckRequest(t, code, {}, '192.0.2.44');
  expect(res.status).toBe(200);
  return (await res.json()).data.precheck_token;
}

async function activate(code: string) {
  const res = await activateRequest(t, code, await precheckToken(code), {}, '192.0.2.44');
  expect(res.status).toBe(200);
  const { data } = await res.json();
  return { activationId: data.activation_id as string, installToken: data.install_token as string };
}

const eventsOf = async (installCodeId: string) =>
  (await t.database.db.select().from(events).where(eq(events.installCodeId, installCodeId)).orderBy(events.id)).map(
    (e) => ({ type: e.type, actor: e.actor }),
  );

describe('POST /api/v2/slowdns/code/cancel', () => {
  it('revokes an issued code: precheck, and activate with a token already handed out, answer 410 install_code_revoked', async () => {
    const browser = await newBrowser(t);
    const { code, id } = await issue(t, browser);
    const token = await precheckToken(code);
    t.clock.advance(20);

    const res = await cancelRequest(t, browser, id);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json();
    expect(body.data).toMatchObject({
      install_code_id: id,
      status: 'revoked',
      usable: false,
      revoked_at: '2026-11-22T10:00:20+00:00',
    });
    expect(body.meta.message).toBe('Install code cancelled: no machine can use it.');

    await expectRefusal(t, () => precheckRequest(t, code, {}, '192.0.2.44'), 410, 'install_code_revoked');
    await expectRefusal(t, () => activateRequest(t, code, token, {}, '192.0.2.44'), 410, 'install_code_revoked');
    expect((await eventsOf(id)).filter((e) => e.type === 'install_code.revoked')).toEqual([
      { type: 'install_code.revoked', actor: 'browser' },
    ]);
  });

  it('is idempotent: a repeat answers the same code and records nothing more', async () => {
    const browser = await newBrowser(t);
    const { id } = await issue(t, browser);
    const first = await (await cancelRequest(t, browser, id)).json();
    const before = await eventsOf(id);
    const again = await cancelRequest(t, browser, id);
    expect(again.status).toBe(200);
    const body = await again.json();
    expect(body.data).toEqual(first.data);
    expect(body.meta.message).toBe('Nothing to cancel: the code is already out of play.');
    expect(await eventsOf(id)).toEqual(before);
  });

  it('stops an install in progress: the activation is released without restoring the code, which is revoked', async () => {
    const browser = await newBrowser(t);
    const { code, id } = await issue(t, browser);
    const { activationId, installToken } = await activate(code);

    const res = await cancelRequest(t, browser, id);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data).toMatchObject({
      status: 'revoked',
      usable: false,
      machine: { hostname: 'vpn1.example.net', public_ip: '203.0.113.7' },
    });
    expect(body.meta.message).toBe(
      'Install code cancelled: the install in progress was released and the code revoked.',
    );
    const [activation] = await t.database.db.select().from(activations).where(eq(activations.id, activationId));
    expect({ status: activation!.status, codeRestored: activation!.codeRestored }).toEqual({
      status: 'released',
      codeRestored: false,
    });

    await expectError(await confirmRequest(t, activationId, installToken), 409, 'activation_released');
    // The installer's own release afterwards changes nothing and restores nothing.
    const release = await releaseRequest(t, activationId, { installToken });
    expect((await release.json()).data.install_code_restored).toBe(false);
    await expectError(await precheckRequest(t, code, {}, '192.0.2.44'), 410, 'install_code_revoked');
    expect(
      (await eventsOf(id))
        .filter((e) => e.type !== 'install_code.issued' && e.actor === 'browser')
        .map((e) => e.type)
        .sort(),
    ).toEqual(['activation.released', 'install_code.revoked']);
  });

  it('cannot undo a confirmed install: 409 activation_confirmed, and nothing changes', async () => {
    const browser = await newBrowser(t);
    const { code, id } = await issue(t, browser);
    const { activationId, installToken } = await activate(code);
    expect((await confirmRequest(t, activationId, installToken)).status).toBe(200);
    await expectRefusal(t, () => cancelRequest(t, browser, id), 409, 'activation_confirmed');
  });

  it("answers 404 for another browser's code as for an unknown one, and 400 for a malformed id", async () => {
    const alice = await newBrowser(t);
    const bob = await newBrowser(t);
    const { id } = await issue(t, alice);
    await expectRefusal(t, () => cancelRequest(t, bob, id), 404, 'install_code_not_found');
    await expectRefusal(t, () => cancelRequest(t, alice, 'ic_0000000000000000'), 404, 'install_code_not_found');
    await expectRefusal(t, () => cancelRequest(t, alice, 'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N'), 400, 'validation_failed');
    const [row] = await t.database.db
      .select({ status: installCodes.status })
      .from(installCodes)
      .where(eq(installCodes.id, id));
    expect(row!.status).toBe('issued');
  });

  it('refuses another site before reading the body, and a request without a session', async () => {
    const browser = await newBrowser(t);
    const { id } = await issue(t, browser);
    await expectRefusal(
      t,
      () => cancelRequest(t, browser, id, { 'sec-fetch-site': 'cross-site' }),
      403,
      'cross_site_request',
    );
    await expectRefusal(
      t,
      () => cancelRequest(t, browser, id, { origin: 'https://evil.example' }),
      403,
      'cross_site_request',
    );
    // A form post from another site: text/plain, which would otherwise be 415.
    await expectRefusal(
      t,
      () =>
        t.request(
          CANCEL_PATH,
          {
            method: 'POST',
            headers: { cookie: browser.cookie, 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' },
            body: JSON.stringify({ install_code_id: id }),
          },
          browser.address,
        ),
      403,
      'cross_site_request',
    );
    await expectRefusal(t, () => cancelRequest(t, { ...browser, cookie: '' }, id), 403, 'browser_session_required');
  });
});
