import { and, eq, isNotNull } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { activations, events, installCodePrechecks, installCodes } from '../../src/db/schema.js';
import { decisionRequest, issueWithApproval, precheckWaiting } from './approval-flow.js';
import { activateRequest, cancelRequest, freshClient, newBrowser, randomMachine } from './install-flow.js';
import type { TestApp } from './test-app.js';

const outcome = async (r: Response) => `${r.status} ${r.status === 200 ? 'ok' : (await r.json()).error.code}`;

/**
 * The races of approval (DESIGN §14), one outcome each, for any database the app `t()` runs on: the file
 * on PGlite or PostgreSQL (test/approval/races.test.ts) and behind a transaction-mode pooler
 * (test/pooler/approval-races.test.ts).
 */
export function approvalRaces(t: () => TestApp): void {
  async function waiting() {
    const app = t();
    const browser = await newBrowser(app);
    const issued = await issueWithApproval(app, browser);
    const onMachine = randomMachine();
    const precheck = await precheckWaiting(app, issued.code, onMachine);
    return { app, browser, onMachine, ...issued, ...precheck };
  }
  async function codeRow(app: TestApp, id: string) {
    const [code] = await app.database.db.select().from(installCodes).where(eq(installCodes.id, id));
    // The code's one decision, kept on the precheck it was taken on.
    const [decided] = await app.database.db
      .select({ decision: installCodePrechecks.decision })
      .from(installCodePrechecks)
      .where(and(eq(installCodePrechecks.installCodeId, id), isNotNull(installCodePrechecks.decision)));
    return { ...code!, approval: decided?.decision ?? 'pending' };
  }
  async function decisions(app: TestApp, id: string) {
    return (await app.database.db.select().from(events).where(eq(events.installCodeId, id)))
      .map((e) => e.type)
      .filter((type) => type === 'install_code.approved' || type === 'install_code.denied');
  }

  it('approve and deny at the same moment: one decision is taken, the other is 409 approval_decided', async () => {
    for (let round = 0; round < 5; round++) {
      const { app, browser, id, precheckId } = await waiting();
      const [approved, denied] = await Promise.all([
        decisionRequest(app, 'approve', browser, id, precheckId),
        decisionRequest(app, 'deny', browser, id, precheckId),
      ]);
      const results = [await outcome(approved), await outcome(denied)];
      expect(results.sort()).toEqual(['200 ok', '409 approval_decided']);
      const row = await codeRow(app, id);
      const approveWon = approved.status === 200;
      expect({ approval: row.approval, status: row.status }).toEqual(
        approveWon ? { approval: 'approved', status: 'issued' } : { approval: 'denied', status: 'revoked' },
      );
      expect(await decisions(app, id)).toEqual([approveWon ? 'install_code.approved' : 'install_code.denied']);
    }
  });

  it('approve racing a cancel: the code ends revoked, and an approval is recorded only when it came first', async () => {
    for (let round = 0; round < 5; round++) {
      const { app, browser, id, precheckId } = await waiting();
      const [approved, cancelled] = await Promise.all([
        decisionRequest(app, 'approve', browser, id, precheckId),
        cancelRequest(app, browser, id),
      ]);
      expect(cancelled.status).toBe(200);
      const approveResult = await outcome(approved);
      expect(['200 ok', '410 install_code_revoked']).toContain(approveResult);
      const row = await codeRow(app, id);
      expect(row.status).toBe('revoked');
      expect({ approval: row.approval, decisions: await decisions(app, id) }).toEqual(
        approveResult === '200 ok'
          ? { approval: 'approved', decisions: ['install_code.approved'] }
          : { approval: 'pending', decisions: [] },
      );
    }
  });

  it('many activates polling while the person approves: one activation, every answer waiting or that activation', async () => {
    const { app, browser, id, precheckId, code, token, onMachine } = await waiting();
    // From addresses of their own: the repeats that arrive after the approval count in the activate limits, as any repeat does.
    const poll = () => activateRequest(app, code, token, onMachine, freshClient().address);
    const [answers] = await Promise.all([
      Promise.all(Array.from({ length: 12 }, poll)),
      decisionRequest(app, 'approve', browser, id, precheckId),
    ]);
    const after = await poll();
    const made = await app.database.db.select().from(activations).where(eq(activations.installCodeId, id));
    expect(made).toHaveLength(1);
    expect((await codeRow(app, id)).status).toBe('activated');
    for (const answer of [...answers, after]) {
      if (answer.status === 200) expect((await answer.json()).data.activation_id).toBe(made[0]!.id);
      // 429: the pace of the wait before the approval, or the machine's daily activate limit spent by repeats after it.
      else expect(['409 approval_pending', '429 rate_limit_exceeded']).toContain(await outcome(answer));
    }
  });
}
