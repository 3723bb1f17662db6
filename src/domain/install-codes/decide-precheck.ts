import { and, eq, isNotNull, or } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement } from '../../db/statement.js';
import { installCodePrechecks, installCodes } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { recordEvent, type ChangeContext } from '../events/event-trail.js';
import { decided, type ApprovalDecision } from './approval.js';
import { installCodeProblem } from './code-problem.js';

/** Who decides: the browser session that issued the code (DESIGN §14), or an operator (§22). */
export type Decider = { browserSessionHash: string } | 'operator';

type DecideParams = { precheck_id: string; decision: string; now: string; revoke_code: boolean };

// The decision on the precheck, and a denied `uses: 1` code revoked with it.
const DECIDE = namedStatement<DecideParams>(`with decided as (
  update install_code_prechecks set decision = :decision, decided_at = :now::timestamptz where id = :precheck_id returning install_code_id)
update install_codes set status = 'revoked', revoked_at = :now::timestamptz
from decided where :revoke_code::boolean and install_codes.id = decided.install_code_id`);

/**
 * The decision on one precheck of a code issued with approval, in one transaction with its event, the code's
 * row locked so that decisions and a cancel on one code are made one after the other. Who decides only selects
 * the code: the session's own (another session's code is as unknown as none) or any, for an operator; 404
 * `install_code_not_found`, and a precheck not of this code 404 `precheck_not_found`. A `uses: 1` code takes
 * one decision (§14): it binds the code to that precheck, and a deny revokes the code. A code with `uses` > 1
 * takes one per precheck (§22): approve lets that precheck's token take one use, deny refuses that token and
 * the code stays usable. Repeating a decision changes nothing (`changed: false`); the other decision afterwards
 * is 409 `approval_decided`; a code that can no longer be used answers its own error and is left as it is.
 */
export async function decidePrecheck(
  db: Database,
  {
    input: { decider, installCodeId, precheckId, decision },
    now,
    context,
  }: {
    input: { decider: Decider; installCodeId: string; precheckId: string; decision: ApprovalDecision };
    now: Date;
    context: ChangeContext;
  },
): Promise<{ changed: boolean; decidedAt: Date }> {
  return db.transaction(async (tx) => {
    const [code] = await tx
      .select()
      .from(installCodes)
      .where(
        decider === 'operator'
          ? eq(installCodes.id, installCodeId)
          : and(eq(installCodes.id, installCodeId), eq(installCodes.browserSessionHash, decider.browserSessionHash)),
      )
      .for('update');
    if (!code)
      throw new ApiError(
        'install_code_not_found',
        decider === 'operator' ? 'No install code has this id.' : 'This browser issued no install code with this id.',
      );
    // A page code's machine is the person's to approve (§14): an operator approving it would override them.
    // Denying stops the install, as an operator's revoke of the code would.
    if (decider === 'operator' && code.browserSessionHash !== null && decision === 'approve')
      throw new ApiError('approval_not_operators');
    const single = code.uses === 1;
    // This precheck, and a `uses: 1` code's decided precheck wherever it is.
    const rows = await tx
      .select()
      .from(installCodePrechecks)
      .where(
        and(
          eq(installCodePrechecks.installCodeId, code.id),
          single
            ? or(eq(installCodePrechecks.id, precheckId), isNotNull(installCodePrechecks.decision))
            : eq(installCodePrechecks.id, precheckId),
        ),
      );
    const precheck = rows.find((row) => row.id === precheckId);
    if (!precheck) throw new ApiError('precheck_not_found');
    const outcome = decided[decision];
    // The decision already taken: a `uses: 1` code's one, on whichever precheck; otherwise this precheck's own.
    const taken = single
      ? rows.find((row) => row.decision !== null)
      : precheck.decision !== null
        ? precheck
        : undefined;
    if (taken?.id === precheckId && taken.decision === outcome)
      return { changed: false, decidedAt: taken.decidedAt ?? now };
    if (taken) throw new ApiError('approval_decided');
    const problem = installCodeProblem(code, now);
    if (problem) throw problem;
    const revokesCode = single && outcome === 'denied';
    await runStatement<never, DecideParams>(tx, DECIDE, {
      precheck_id: precheckId,
      decision: outcome,
      now: now.toISOString(),
      revoke_code: revokesCode,
    });
    await recordEvent(tx, context, now, {
      type: outcome === 'approved' ? 'install_code.approved' : 'install_code.denied',
      installCodeId: code.id,
      data: {
        precheck_id: precheckId,
        precheck_ip: precheck.ip,
        ssh_fingerprint: precheck.sshFingerprint,
        ...(revokesCode ? { reason: 'denied' } : {}),
      },
    });
    return { changed: true, decidedAt: now };
  });
}
