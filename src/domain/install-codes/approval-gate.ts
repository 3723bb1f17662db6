import type { Database } from '../../db/database.js';
import { composedStatement } from '../../db/composed-statement.js';
import { runStatement, timestampOf } from '../../db/statement.js';
import { ApiError } from '../../errors.js';
import { approvalWaitPolicy, secondsToBucketEnd } from '../rate-limits/policies.js';
import { approvalPendingError, codeDecision } from './approval.js';
import { installCodeProblem, type InstallCodeRow } from './code-problem.js';

type GateParams = { code_hash: string; precheck_id: string | null };

const GATE = composedStatement<GateParams>()`select c.status, c.expires_at, c.require_approval, c.uses, p.decision, p.id is not null as known,
  ${codeDecision('c')} as code_decision
from install_codes c left join install_code_prechecks p on p.id = :precheck_id and p.install_code_id = c.id
where c.code_hash = :code_hash`;

/**
 * What an activate presenting this precheck of the code meets, one read and no write: undefined when it goes on
 * (a code issued without approval, one no longer usable, whose claim answers its own error, or a precheck
 * approved), 409 `approval_pending` while the decision waits, or the refusal. A `uses: 1` code approved for
 * another precheck is 403 `machine_mismatch`; a code with `uses` > 1 refuses a denied precheck with 403
 * `approval_denied` and stays usable for other machines; a precheck the code does not know (a release restored
 * the code and forgot them) is refused as a bad token. A token without a precheck id is of a code issued
 * without approval: read only for a code with `uses` > 1, whose claim does not check approval itself.
 */
export async function approvalProblem(
  db: Database,
  { codeHash, precheckId, uses }: { codeHash: string; precheckId: string | undefined; uses: number },
  now: Date,
): Promise<ApiError | undefined> {
  if (precheckId === undefined && uses === 1) return undefined;
  type Row = {
    status: InstallCodeRow['status'];
    expires_at: string;
    require_approval: boolean;
    uses: number;
    decision: 'approved' | 'denied' | null;
    known: boolean;
    code_decision: 'approved' | 'denied' | null;
  };
  const [row] = await runStatement<Row, GateParams>(db, GATE, { code_hash: codeHash, precheck_id: precheckId ?? null });
  if (
    !row?.require_approval ||
    installCodeProblem({ status: row.status, expiresAt: timestampOf(row.expires_at), decision: row.code_decision }, now)
  )
    return undefined;
  const pending = approvalPendingError(secondsToBucketEnd(now, approvalWaitPolicy.windowSeconds));
  if (row.uses > 1) {
    if (!row.known)
      return new ApiError('precheck_token_invalid', 'This precheck is not known to the code; run the precheck again.');
    if (row.decision === 'denied')
      return new ApiError('approval_denied', 'An operator denied this machine: it cannot use this install code.');
    return row.decision === 'approved' ? undefined : pending;
  }
  if (row.code_decision === 'approved')
    return row.decision === 'approved'
      ? undefined
      : new ApiError(
          'machine_mismatch',
          'The owner of this install code approved another precheck: only its token can activate the code.',
        );
  if (row.known) return pending;
  return new ApiError(
    'precheck_token_invalid',
    'This precheck is no longer current (the code was restored after a failed install); run the precheck again.',
  );
}
