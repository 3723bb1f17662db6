import { describe, expect, it } from 'vitest';
import { decisionRequest, issueWithApproval, precheckWaiting } from '../support/approval-flow.js';
import { issue, machine, newBrowser, otherMachine } from '../support/install-flow.js';
import { useTestApp, type TestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, consolePage, signIn } from './console-support.js';

const FIRST_IP = '192.0.2.44';
const SECOND_IP = '2001:db8::7';

/** A code issued with approval, prechecked by two machines, the second approved by the person. */
async function decidedCode(t: TestApp) {
  const browser = await newBrowser(t);
  const issued = await issueWithApproval(t, browser);
  const first = await precheckWaiting(t, issued.code, machine, FIRST_IP);
  t.clock.advance(60);
  const second = await precheckWaiting(t, issued.code, otherMachine, SECOND_IP);
  expect((await decisionRequest(t, 'approve', browser, issued.id, second.precheckId)).status).toBe(200);
  return { ...issued, first, second };
}

async function adminShow(t: TestApp, id: string) {
  const res = await t.request(`/api/v2/admin/install-codes/${id}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()).data;
}

describe("a code's approval and its prechecks, in the admin API and the console", () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it("the admin API's code answers its prechecks newest first, each with machine, address, time and the decision on it", async () => {
    const code = await decidedCode(t);
    const data = await adminShow(t, code.id);
    expect(data.approval).toBe('approved');
    expect(data.prechecks).toEqual([
      expect.objectContaining({
        precheck_id: code.second.precheckId,
        machine_id: otherMachine.machine_id,
        ip: SECOND_IP,
        approval: 'approved',
      }),
      expect.objectContaining({
        precheck_id: code.first.precheckId,
        machine_id: machine.machine_id,
        ip: FIRST_IP,
        approval: 'not_chosen',
      }),
    ]);
    expect(Date.parse(data.prechecks[0].prechecked_at)).toBeGreaterThan(Date.parse(data.prechecks[1].prechecked_at));
  });

  it("the admin API's code issued without approval answers no prechecks and approval not_required", async () => {
    const code = await issue(t, await newBrowser(t));
    const data = await adminShow(t, code.id);
    expect({ approval: data.approval, prechecks: data.prechecks }).toEqual({ approval: 'not_required', prechecks: [] });
  });

  it("the console's code view shows the approval and each precheck's machine, address, time and decision, as the admin API answers them", async () => {
    const code = await decidedCode(t);
    const api = await adminShow(t, code.id);
    const page = await consolePage(t, `/admin/codes/${code.id}`, await signIn(t, ADMIN_TOKEN));
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/<dt>Approval<\/dt><dd><span class="badge" data-state="approved">approved<\/span>/);
    const section = /<section class="card" aria-labelledby="prechecks-heading">([\s\S]*?)<\/section>/.exec(
      page.html,
    )?.[1];
    expect(section).toBeDefined();
    const rows = [...section!.matchAll(/<tr><td[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => m[0]);
    expect(rows).toHaveLength(2);
    for (const [i, precheck] of (api.prechecks as Record<string, string>[]).entries()) {
      expect(rows[i]).toContain(precheck.machine_id);
      expect(rows[i]).toContain(`<code>${precheck.ip}</code>`);
      expect(rows[i]).toContain(`datetime="${new Date(precheck.prechecked_at!).toISOString()}"`);
      expect(rows[i]).toContain(`data-state="${precheck.approval}"`);
    }
  });

  it("the console's view of a code waiting for the person shows approval pending and the machine waiting", async () => {
    const browser = await newBrowser(t);
    const issued = await issueWithApproval(t, browser);
    await precheckWaiting(t, issued.code, machine, FIRST_IP);
    const page = await consolePage(t, `/admin/codes/${issued.id}`, await signIn(t, ADMIN_TOKEN));
    expect(page.html).toMatch(/<dt>Approval<\/dt><dd><span class="badge" data-state="pending">pending<\/span>/);
    expect(page.html).toContain(machine.machine_id);
    expect(page.html).toContain(`<code>${FIRST_IP}</code>`);
  });

  it("the console's view of a code issued without approval says not required and shows no prechecks table", async () => {
    const code = await issue(t, await newBrowser(t));
    const page = await consolePage(t, `/admin/codes/${code.id}`, await signIn(t, ADMIN_TOKEN));
    expect(page.html).toMatch(
      /<dt>Approval<\/dt><dd><span class="badge" data-state="not_required">not required<\/span>/,
    );
    expect(page.html).not.toContain('prechecks-heading');
  });
});
