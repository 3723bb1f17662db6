import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement, timestampOf } from '../../db/statement.js';
import { installCodePrechecks, installCodes } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { recordEvent, type ChangeContext } from '../events/event-trail.js';
import { installCodeProblem, type InstallCodeRow } from './code-problem.js';
import { APPROVAL_WAIT_SECONDS } from '../rate-limits/policies.js';

/**
 * The person approves the machine (DESIGN §14). A code issued with approval is `pending` until the person
 * approves or denies one of its prechecks, each kept in `install_code_prechecks` with the id its token
 * carries. Approval binds the code to that precheck; denial revokes the code.
 */
export const APPROVAL_POLICIES = ['off', 'optional', 'required'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

/** Whether a code issued now waits for approval: `required` always, `optional` when the person asked, `off` never. */
export function approvalAtIssue(policy: ApprovalPolicy, asked: boolean | undefined): boolean {
  return policy === 'required' || (policy === 'optional' && asked === true);
}

export const CODE_APPROVALS = ['not_required', 'pending', 'approved', 'denied'] as const;
export type CodeApproval = (typeof CODE_APPROVALS)[number];

/** Where one precheck stands: waiting, the one approved or denied, or passed over (another precheck was decided). */
export const PRECHECK_APPROVALS = ['pending', 'approved', 'denied', 'not_chosen'] as const;
export type PrecheckApproval = (typeof PRECHECK_APPROVALS)[number];

export type ApprovalDecision = 'approve' | 'deny';

export type InstallCodePrecheckRow = typeof installCodePrechecks.$inferSelect;

export function codeApproval(code: Pick<InstallCodeRow, 'approval'>): CodeApproval {
  return code.approval ?? 'not_required';
}

export function precheckApproval(
  code: Pick<InstallCodeRow, 'approval' | 'approvalPrecheckId'>,
  precheckId: string,
): PrecheckApproval {
  if (code.approval === null || code.approval === 'pending') return 'pending';
  return code.approvalPrecheckId === precheckId ? code.approval : 'not_chosen';
}

/** A code shows at most this many prechecks, newest first (the precheck limits allow 10 a day per address and per machine). */
export const SHOWN_PRECHECKS_LIMIT = 20;

/** The prechecks of these codes (those issued with approval), newest first, at most SHOWN_PRECHECKS_LIMIT each. */
export async function prechecksOf(
  db: Database,
  codes: Pick<InstallCodeRow, 'id' | 'approval'>[],
): Promise<Map<string, InstallCodePrecheckRow[]>> {
  const ids = codes.filter((c) => c.approval !== null).map((c) => c.id);
  const byCode = new Map<string, InstallCodePrecheckRow[]>();
  if (ids.length === 0) return byCode;
  const rows = await db
    .select()
    .from(installCodePrechecks)
    .where(inArray(installCodePrechecks.installCodeId, ids))
    .orderBy(asc(installCodePrechecks.precheckedAt), asc(installCodePrechecks.id));
  for (const row of rows.reverse()) {
    const list = byCode.get(row.installCodeId) ?? [];
    if (list.length < SHOWN_PRECHECKS_LIMIT) list.push(row);
    byCode.set(row.installCodeId, list);
  }
  return byCode;
}

export const decided: Record<ApprovalDecision, 'approved' | 'denied'> = { approve: 'approved', deny: 'denied' };

/**
 * §14's one decision on a code, with its event: the code bound to that precheck (`approval_precheck_id`), and
 * revoked when denied. The caller holds the code's row lock and has checked the decision may be taken: the
 * person's on the page, or an operator's on a `uses: 1` code it issued with approval.
 */
export async function recordCodeDecision(
  tx: Database,
  {
    code,
    precheck,
    outcome,
    now,
    context,
  }: {
    code: Pick<InstallCodeRow, 'id'>;
    precheck: Pick<InstallCodePrecheckRow, 'id' | 'ip' | 'sshFingerprint'>;
    outcome: 'approved' | 'denied';
    now: Date;
    context: ChangeContext;
  },
): Promise<void> {
  await tx
    .update(installCodes)
    .set({
      approval: outcome,
      approvalPrecheckId: precheck.id,
      approvalDecidedAt: now,
      ...(outcome === 'denied' ? { status: 'revoked' as const, revokedAt: now } : {}),
    })
    .where(eq(installCodes.id, code.id));
  await recordEvent(tx, context, now, {
    type: outcome === 'approved' ? 'install_code.approved' : 'install_code.denied',
    installCodeId: code.id,
    data: {
      precheck_id: precheck.id,
      precheck_ip: precheck.ip,
      ssh_fingerprint: precheck.sshFingerprint,
      ...(outcome === 'denied' ? { reason: 'denied' } : {}),
    },
  });
}

/**
 * The browser session that issued a code approves or denies one of its prechecks, in one transaction
 * with its event, the code's row locked so that an approve, a deny and a cancel at the same moment
 * are made one after the other. Repeating the decision changes nothing (`changed: false`); the other
 * decision afterwards is 409 `approval_decided`. Another session's code is 404 `install_code_not_found`,
 * a precheck not of this code 404 `precheck_not_found`; a code that can no longer be used (expired,
 * cancelled) answers its own error and is left as it is.
 */
export async function decideApproval(
  db: Database,
  {
    input: { browserSessionHash, installCodeId, precheckId, decision },
    now,
    context,
  }: {
    input: { browserSessionHash: string; installCodeId: string; precheckId: string; decision: ApprovalDecision };
    now: Date;
    context: ChangeContext;
  },
): Promise<{ changed: boolean }> {
  return db.transaction(async (tx) => {
    const [code] = await tx
      .select()
      .from(installCodes)
      .where(and(eq(installCodes.id, installCodeId), eq(installCodes.browserSessionHash, browserSessionHash)))
      .for('update');
    if (!code) throw new ApiError('install_code_not_found', 'This browser issued no install code with this id.');
    const [precheck] = await tx
      .select()
      .from(installCodePrechecks)
      .where(and(eq(installCodePrechecks.id, precheckId), eq(installCodePrechecks.installCodeId, installCodeId)));
    if (!precheck) throw new ApiError('precheck_not_found');
    const outcome = decided[decision];
    if (code.approval === outcome && code.approvalPrecheckId === precheckId) return { changed: false };
    if (code.approval !== 'pending') throw new ApiError('approval_decided');
    const problem = installCodeProblem(code, now);
    if (problem) throw problem;
    await recordCodeDecision(tx, { code, precheck, outcome, now, context });
    return { changed: true };
  });
}

/** What an activate presenting a precheck token of a code issued with approval meets. */
export type ApprovalGate =
  /** Approved for this precheck: the activate goes on (the claim checks it again). */
  | 'approved'
  /** The person has not decided: 409 `approval_pending`, nothing written. */
  | 'pending'
  /** Approved for another precheck: 403 `machine_mismatch`. */
  | 'other_precheck'
  /** The precheck is no longer known (a release restored the code and cleared them): run the precheck again. */
  | 'unknown_precheck'
  /** Anything else (denied, revoked, expired, activated): the usual answer of the code as it is. */
  | 'as_usual';

type GateParams = { code_hash: string; precheck_id: string };

const GATE = namedStatement<GateParams>(`select c.status, c.expires_at, c.approval, c.approval_precheck_id,
  exists (select from install_code_prechecks p where p.id = :precheck_id and p.install_code_id = c.id) as known
from install_codes c where c.code_hash = :code_hash`);

/** One read, no lock and no write: where the person's approval stands for this precheck of the code. */
export async function approvalGate(
  db: Database,
  codeHash: string,
  precheckId: string,
  now: Date,
): Promise<ApprovalGate> {
  type Row = {
    status: InstallCodeRow['status'];
    expires_at: string;
    approval: InstallCodeRow['approval'];
    approval_precheck_id: string | null;
    known: boolean;
  };
  const [row] = await runStatement<Row, GateParams>(db, GATE, { code_hash: codeHash, precheck_id: precheckId });
  if (
    !row ||
    row.approval === null ||
    installCodeProblem({ status: row.status, expiresAt: timestampOf(row.expires_at), approval: row.approval }, now)
  )
    return 'as_usual';
  if (row.approval === 'approved') return row.approval_precheck_id === precheckId ? 'approved' : 'other_precheck';
  return row.known ? 'pending' : 'unknown_precheck';
}

/** 409 `approval_pending`, telling the installer when to ask again (the end of its approval-wait bucket). */
export function approvalPendingError(retryAfterSeconds: number = APPROVAL_WAIT_SECONDS): ApiError {
  return new ApiError('approval_pending', undefined, { 'Retry-After': String(retryAfterSeconds) });
}
