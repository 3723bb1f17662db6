import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { installCodePrechecks, installCodes } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement, timestampOf } from '../../db/statement.js';
import { recordEvent, type ChangeContext } from '../events/event-trail.js';
import { decided, recordCodeDecision, type ApprovalDecision } from './approval.js';
import { installCodeProblem, type InstallCodeRow } from './code-problem.js';

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
    if (!perPrecheck) {
      await recordCodeDecision(tx, { code, precheck, outcome, now, context });
      return { changed: true, decidedAt: now };
    }
    await tx
      .update(installCodePrechecks)
      .set({ decision: outcome, decidedAt: now })
      .where(eq(installCodePrechecks.id, precheckId));
    await recordEvent(tx, context, now, {
      type: outcome === 'approved' ? 'install_code.approved' : 'install_code.denied',
      installCodeId,
      data: { precheck_id: precheckId, precheck_ip: precheck.ip, ssh_fingerprint: precheck.sshFingerprint },
    });
    return { changed: true, decidedAt: now };
  });
}

type FleetGateParams = { code_id: string; precheck_id: string | null };

const FLEET_GATE =
  namedStatement<FleetGateParams>(`select c.status, c.expires_at, c.approval, p.decision, p.id is not null as known
from install_codes c left join install_code_prechecks p on p.id = :precheck_id and p.install_code_id = c.id
where c.id = :code_id`);

/**
 * Where an operator's decision on this precheck of a code with `uses` > 1 stands (DESIGN §22): one read, no
 * write. An approved precheck (or a code issued without approval, or one no longer usable) goes on; `pending` waits; a denied precheck is 403
 * `approval_denied` (the code stays usable for other machines); a precheck the code does not know is refused
 * as a bad token.
 */
export async function fleetApprovalGate(
  db: Database,
  codeId: string,
  precheckId: string | undefined,
  now: Date,
): Promise<'proceed' | 'pending' | ApiError> {
  type Row = {
    status: InstallCodeRow['status'];
    expires_at: string;
    approval: string | null;
    decision: 'approved' | 'denied' | null;
    known: boolean;
  };
  const [row] = await runStatement<Row, FleetGateParams>(db, FLEET_GATE, {
    code_id: codeId,
    precheck_id: precheckId ?? null,
  });
  // Issued without approval, or unusable (the claim answers the code's own error).
  if (
    !row ||
    row.approval === null ||
    installCodeProblem({ status: row.status, expiresAt: timestampOf(row.expires_at) }, now)
  )
    return 'proceed';
  if (!row.known)
    return new ApiError('precheck_token_invalid', 'This precheck is not known to the code; run the precheck again.');
  if (row.decision === 'denied')
    return new ApiError('approval_denied', 'An operator denied this machine: it cannot use this install code.');
  return row.decision === 'approved' ? 'proceed' : 'pending';
}
