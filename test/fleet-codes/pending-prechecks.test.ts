import { describe, expect, it } from 'vitest';
import { randomMachine } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, createCode, decide, fleetPrecheck, showCode } from './fleet-requests.js';

/** The machines waiting on an operator, read on their own and paged, not filtered out of the newest 20 shown. */
describe('the approval queue of a fleet code (issue 58: every waiting machine in view)', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  const pendingPage = async (id: string, query = '') => {
    const res = await t.request(`/api/v2/admin/install-codes/${id}/pending-prechecks${query}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()).data as {
      items: { precheck_id: string; approval: string }[];
      next_cursor: string | null;
    };
  };

  it('25 prechecks, the 20 shown approved: the show counts 5 waiting and the pending list pages through exactly those 5', async () => {
    const { install_code: code, install_code_id: id } = await createCode(t, { uses: 100, require_approval: true });
    for (let i = 0; i < 25; i++) {
      expect((await fleetPrecheck(t, code, randomMachine(), `198.51.100.${i + 1}`)).status).toBe(200);
      t.clock.advance(1);
    }
    const shown = await showCode(t, id);
    expect(shown.prechecks).toHaveLength(20);
    expect(shown.pending_prechecks).toBe(25);
    for (const p of shown.prechecks) expect((await decide(t, id, p.precheck_id, 'approve')).status).toBe(200);

    const after = await showCode(t, id);
    expect(after.prechecks.filter((p: { approval: string }) => p.approval === 'pending')).toEqual([]);
    expect(after.pending_prechecks).toBe(5);

    const first = await pendingPage(id, '?limit=3');
    expect(first.items).toHaveLength(3);
    expect(first.next_cursor).not.toBeNull();
    const second = await pendingPage(id, `?limit=3&cursor=${first.next_cursor}`);
    expect(second.items).toHaveLength(2);
    expect(second.next_cursor).toBeNull();
    const waiting = [...first.items, ...second.items];
    expect(new Set(waiting.map((p) => p.precheck_id)).size).toBe(5);
    expect(waiting.every((p) => p.approval === 'pending')).toBe(true);
    const approved = new Set(shown.prechecks.map((p: { precheck_id: string }) => p.precheck_id));
    expect(waiting.some((p) => approved.has(p.precheck_id))).toBe(false);

    for (const p of waiting) expect((await decide(t, id, p.precheck_id, 'deny')).status).toBe(200);
    expect((await showCode(t, id)).pending_prechecks).toBe(0);
    expect((await pendingPage(id)).items).toEqual([]);
  });

  it('a uses 1 code once decided has no machine waiting, and an unknown code is 404 install_code_not_found', async () => {
    const { install_code: code, install_code_id: id } = await createCode(t, { require_approval: true });
    await fleetPrecheck(t, code, randomMachine(), '198.51.100.70');
    await fleetPrecheck(t, code, randomMachine(), '198.51.100.71');
    expect((await pendingPage(id)).items).toHaveLength(2);
    const [one] = (await pendingPage(id)).items;
    expect((await decide(t, id, one!.precheck_id, 'approve')).status).toBe(200);
    expect((await pendingPage(id)).items).toEqual([]);
    expect((await showCode(t, id)).pending_prechecks).toBe(0);
    const missing = await t.request('/api/v2/admin/install-codes/ic_0000000000000000/pending-prechecks', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('install_code_not_found');
  });
});
