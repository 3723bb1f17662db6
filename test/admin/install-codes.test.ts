import { describe, expect, it } from 'vitest';
import { eventTrail } from '../support/event-trail.js';
import {
  activatedInstall,
  confirmRequest,
  expectError,
  freshClient,
  issue,
  newBrowser,
  precheckRequest,
} from '../support/install-flow.js';
import { type TestApp, useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, adminAction, adminList, allPages } from './admin-requests.js';

/** Issues a code from a new browser and answers its install_code_id, hint and code. */
const issued = async (t: TestApp) => issue(t, await newBrowser(t));

describe('admin: install codes', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('lists codes newest first with hint, status, times and the activation that used them, but not the code itself', async () => {
    const first = await issued(t);
    t.clock.advance(10);
    const used = await activatedInstall(t);
    const page = await adminList(t, 'install-codes');
    expect(page.next_cursor).toBeNull();
    expect(page.items).toHaveLength(2);
    expect(page.items[1]).toEqual({
      install_code_id: first.id,
      install_code_hint: first.hint,
      status: 'issued',
      issued_at: '2026-11-22T10:00:00+00:00',
      expires_at: '2026-11-22T10:15:00+00:00',
      revoked_at: null,
      approval: 'not_required',
      activation: null,
      uses: 1,
      uses_spent: 0,
      uses_held: 0,
      last_used_at: null,
      tags: {},
      description: null,
      issued_by: 'page',
      allowed_cidrs: null,
      hostname_pattern: null,
      require_machine_proof: false,
      trust: null,
    });
    expect(page.items[0]).toMatchObject({
      status: 'activated',
      activation: {
        activation_id: used.activationId,
        status: 'activated',
        hostname: 'vpn1.example.net',
        public_ip: '203.0.113.7',
      },
    });
    const text = JSON.stringify(page);
    expect(text).not.toContain(first.code);
    expect(text).not.toContain(used.code);
  });

  it('filters by status (expired and revoked included), hint and time range', async () => {
    const old = await issued(t);
    t.clock.advance(1000); // past the 900 s lifetime of `old`
    const fresh = await issued(t);
    const revoked = await issued(t);
    expect((await adminAction(t, `install-codes/${revoked.id}/revoke`)).status).toBe(200);
    const consumed = await activatedInstall(t);
    expect((await confirmRequest(t, consumed.activationId, consumed.installToken)).status).toBe(200);
    const activated = await activatedInstall(t);

    const ids = async (query: Record<string, string>) =>
      (await adminList(t, 'install-codes', query)).items.map((i) => i.install_code_hint);
    const hintOf = (code: string) => `${code.slice(0, 8)}…${code.slice(-6)}`;
    expect(await ids({ status: 'expired' })).toEqual([old.hint]);
    expect(await ids({ status: 'issued' })).toEqual([fresh.hint]);
    expect(await ids({ status: 'revoked' })).toEqual([revoked.hint]);
    expect(await ids({ status: 'consumed' })).toEqual([hintOf(consumed.code)]);
    expect(await ids({ status: 'activated' })).toEqual([hintOf(activated.code)]);
    expect(await ids({ hint: fresh.code.slice(-6).toLowerCase() })).toEqual([fresh.hint]);
    expect(await ids({ hint: '%' })).toEqual([]);
    expect(await ids({ until: '2026-11-22T10:00:01+00:00' })).toEqual([old.hint]);
    expect((await ids({ since: '2026-11-22T10:00:01+00:00' })).length).toBe(4);
  });

  it('pages with limit and cursor: no code twice and none missed while codes are added between pages', async () => {
    const before: string[] = [];
    for (let i = 0; i < 5; i++) {
      before.push((await issued(t)).id);
      if (i % 2 === 0) t.clock.advance(1); // some share a second, so ties are broken by id
    }
    const added: string[] = [];
    const seen = await allPages(t, 'install-codes', { limit: 2 }, async () => {
      added.push((await issued(t)).id);
    });
    const seenIds = seen.map((i) => i.install_code_id);
    expect(new Set(seenIds).size).toBe(seenIds.length);
    expect(seenIds).toEqual(expect.arrayContaining(before));
    expect(seenIds.filter((id) => !before.includes(id)).every((id) => added.includes(id))).toBe(true);
    // The first page is the newest: the last codes issued before paging began.
    expect(seenIds.slice(0, 2).sort()).toEqual(before.slice(3).sort());
  });

  it('rejects a limit over 200, a cursor it did not give and a malformed time with 400', async () => {
    for (const query of ['limit=201', 'limit=0', 'cursor=bm90LWEtY3Vyc29y', 'since=yesterday', 'status=lost']) {
      await expectError(
        await t.request(`/api/v2/admin/install-codes?${query}`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        }),
        400,
        'validation_failed',
      );
    }
  });

  it('revoke: the code is revoked (410 at precheck), the event names the operator and the request', async () => {
    const code = await issued(t);
    const trail = eventTrail(t);
    await trail.take();
    const res = await t.request(`/api/v2/admin/install-codes/${code.id}/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-request-id': 'op-revoke-1' },
    });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({
      install_code_id: code.id,
      status: 'revoked',
      revoked_at: '2026-11-22T10:00:00+00:00',
    });
    expect(await trail.take()).toEqual([
      expect.objectContaining({
        type: 'install_code.revoked',
        actor: 'operator',
        installCodeId: code.id,
        requestId: 'op-revoke-1',
      }),
    ]);
    await expectError(await precheckRequest(t, code.code, {}, freshClient().address), 410, 'install_code_revoked');
  });

  it('revoking a revoked code again is 200 and records nothing', async () => {
    const code = await issued(t);
    expect((await adminAction(t, `install-codes/${code.id}/revoke`)).status).toBe(200);
    const trail = eventTrail(t);
    await trail.take();
    expect((await adminAction(t, `install-codes/${code.id}/revoke`)).status).toBe(200);
    expect(await trail.types()).toEqual([]);
  });

  it('revoke of a code an activation holds is 409, of an unknown one 404, of a malformed id 400', async () => {
    const a = await activatedInstall(t);
    const [item] = (await adminList(t, 'install-codes', { status: 'activated' })).items;
    await expectError(
      await adminAction(t, `install-codes/${item!.install_code_id}/revoke`),
      409,
      'install_code_unavailable',
    );
    await expectError(await adminAction(t, 'install-codes/ic_0000000000000000/revoke'), 404, 'install_code_not_found');
    await expectError(await adminAction(t, 'install-codes/code_1/revoke'), 400, 'validation_failed');
    expect((await adminList(t, 'activations')).items[0]!.activation_id).toBe(a.activationId);
  });
});
