import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { installCodePrechecks } from '../../src/db/schema.js';
import { decide } from '../fleet-codes/fleet-requests.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { decisionRequest, issueWithApproval, precheckWaiting } from '../support/approval-flow.js';
import { expectError, newBrowser } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';

/** DESIGN §14: the person who issued a page code approves its machine; an operator's approve would override them. */
describe('an operator and a page code’s approval', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('an operator approving a precheck of a page code is 403 approval_not_operators and the precheck keeps waiting', async () => {
    const browser = await newBrowser(t);
    const issued = await issueWithApproval(t, browser);
    const { precheckId } = await precheckWaiting(t, issued.code);
    await expectError(await decide(t, issued.id, precheckId, 'approve'), 403, 'approval_not_operators');
    const [row] = await t.database.db
      .select()
      .from(installCodePrechecks)
      .where(eq(installCodePrechecks.id, precheckId));
    expect(row!.decision).toBeNull();
    expect((await decisionRequest(t, 'approve', browser, issued.id, precheckId)).status).toBe(200);
  });

  it('an operator may still deny it, which revokes the code as revoking it would', async () => {
    const browser = await newBrowser(t);
    const issued = await issueWithApproval(t, browser);
    const { precheckId } = await precheckWaiting(t, issued.code);
    expect((await decide(t, issued.id, precheckId, 'deny')).status).toBe(200);
  });
});
