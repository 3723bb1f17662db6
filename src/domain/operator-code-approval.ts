import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { installCodePrechecks, installCodes } from '../db/schema.js';
import { ApiError } from '../errors.js';
import { recordEvent, type ChangeContext } from './events.js';
import type { ApprovalDecision } from './install-code-approval.js';
import { installCodeProblem } from './install-codes.js';

const decided: Record<ApprovalDecision, 'approved' | 'denied'> = { approve: 'approved', deny: 'denied' };

/**
 * An operator approves or denies one precheck of a code issued with `require_approval` (DESIGN §22), in one
 * transaction with its event, the code's row locked so that decisions on one code are made one after the
 * other. For `uses: 1` the decision is the person's of §14: it binds the code to that precheck, and a deny
 * revokes the code. For `uses` > 1 it is the precheck's own: approve lets that precheck's token take one use,
 * deny refuses that token and the code stays usable. Repeating a decision changes nothing; the other
 * decision afterwards is 409 `approval_decided`.
 */
export async function decidePrecheckAsOperator(
  db: Database,
  {
    input: { installCodeId, precheckId, decision },
    now,
    context,
  }: {
    input: { installCodeId: string; precheckId: string; decision: ApprovalDecision };
    now: Date;
    context: ChangeContext;
  },
): Promise<{ changed: boolean; decidedAt: Date }> {
  return db.transaction(async (tx) => {
    const [code] = await tx.select().from(installCodes).where(eq(installCodes.id, installCodeId)).for('update');
    if (!code) throw new ApiError('install_code_not_found', 'No install code has this id.');
    const [precheck] = await tx
      .select()
      .from(installCodePrechecks)
      .where(and(eq(installCodePrechecks.id, precheckId), eq(installCodePrechecks.installCodeId, installCodeId)));
    if (!precheck) throw new ApiError('precheck_not_found');
    const outcome = decided[decision];
    const perPrecheck = code.uses > 1;
    const before = perPrecheck
      ? { outcome: precheck.decision, at: precheck.decidedAt }
      : { outcome: code.approvalPrecheckId === precheckId ? code.approval : null, at: code.approvalDecidedAt };
    if (before.outcome === outcome) return { changed: false, decidedAt: before.at ?? now };
    if (perPrecheck ? precheck.decision !== null : code.approval !== 'pending') throw new ApiError('approval_decided');
    const problem = installCodeProblem(code, now);
    if (problem) throw problem;
    if (perPrecheck)
      await tx
        .update(installCodePrechecks)
        .set({ decision: outcome, decidedAt: now })
        .where(eq(installCodePrechecks.id, precheckId));
    else
      await tx
        .update(installCodes)
        .set({
          approval: outcome,
          approvalPrecheckId: precheckId,
          approvalDecidedAt: now,
          ...(outcome === 'denied' ? { status: 'revoked' as const, revokedAt: now } : {}),
        })
        .where(eq(installCodes.id, installCodeId));
    await recordEvent(tx, context, now, {
      type: outcome === 'approved' ? 'install_code.approved' : 'install_code.denied',
      installCodeId,
      data: {
        precheck_id: precheckId,
        precheck_ip: precheck.ip,
        ssh_fingerprint: precheck.sshFingerprint,
        ...(outcome === 'denied' && !perPrecheck ? { reason: 'denied' } : {}),
      },
    });
    return { changed: true, decidedAt: now };
  });
}
