import { and, asc, eq, inArray, isNotNull } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { sqlPiece, type SqlPiece } from '../../db/composed-statement.js';
import type { Database } from '../../db/database.js';
import { installCodePrechecks, installCodes } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import type { InstallCodeRow } from './code-problem.js';
import { APPROVAL_WAIT_SECONDS } from '../rate-limits/policies.js';

/**
 * The person approves the machine (DESIGN §14), or an operator does (§22). A code issued with approval
 * (`require_approval`) keeps each precheck in `install_code_prechecks` with the id its token carries, and the
 * decision on it there, the one place a decision is kept. A `uses: 1` code takes one decision: approval binds
 * the code to that precheck, denial revokes the code. A code with `uses` > 1 takes one per precheck.
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

/** A `uses: 1` code's one decision, as its decided precheck holds it (none: the code waits, or has `uses` > 1). */
type DecidedPrecheck = Pick<InstallCodePrecheckRow, 'decision'> | undefined;

/** Where a code stands: issued without approval, waiting (a code with `uses` > 1 always: each precheck is decided on its own), or decided. */
export function codeApproval(
  code: Pick<InstallCodeRow, 'requireApproval' | 'uses'>,
  decided: DecidedPrecheck,
): CodeApproval {
  if (!code.requireApproval) return 'not_required';
  return (code.uses === 1 ? decided?.decision : null) ?? 'pending';
}

/** Where one precheck stands: its own decision, else waiting, or passed over when its `uses: 1` code decided on another. */
export function precheckApproval(
  code: Pick<InstallCodeRow, 'uses'>,
  precheck: Pick<InstallCodePrecheckRow, 'decision'>,
  decided: DecidedPrecheck,
): PrecheckApproval {
  return precheck.decision ?? (code.uses === 1 && decided ? 'not_chosen' : 'pending');
}

/**
 * A `uses: 1` code's decided precheck, to be left-joined to the code's row with `decidedPrecheckOfCode`: at most
 * one (decidePrecheck takes one decision on such a code, its row locked); none for a code with `uses` > 1.
 */
export const decidedPrecheck = alias(installCodePrechecks, 'decided');
export const decidedPrecheckOfCode = and(
  eq(decidedPrecheck.installCodeId, installCodes.id),
  eq(installCodes.uses, 1),
  isNotNull(decidedPrecheck.decision),
);

/**
 * SQL: the decision a `uses: 1` code took (`code` names its `install_codes` row in the statement), as its
 * decided precheck holds it; null while it waits, and for a code with `uses` > 1.
 */
export function codeDecision(code: string): SqlPiece {
  return sqlPiece(
    [],
    `(select d.decision from install_code_prechecks d where d.install_code_id = ${code}.id and ${code}.uses = 1 and d.decision is not null)`,
  );
}

/** A code shows at most this many prechecks, newest first (the precheck limits allow 10 a day per address and per machine). */
export const SHOWN_PRECHECKS_LIMIT = 20;

/** The prechecks a code shows, and its decided precheck (a `uses: 1` code's, found among all of them). */
export interface CodePrechecks {
  /** Newest first, at most SHOWN_PRECHECKS_LIMIT. */
  shown: InstallCodePrecheckRow[];
  decided: InstallCodePrecheckRow | undefined;
}

/** The prechecks of these codes (those issued with approval), in one read. */
export async function prechecksOf(
  db: Database,
  codes: Pick<InstallCodeRow, 'id' | 'requireApproval' | 'uses'>[],
): Promise<Map<string, CodePrechecks>> {
  const ids = codes.filter((c) => c.requireApproval).map((c) => c.id);
  const byCode = new Map<string, CodePrechecks>();
  if (ids.length === 0) return byCode;
  const single = new Set(codes.filter((c) => c.uses === 1).map((c) => c.id));
  const rows = await db
    .select()
    .from(installCodePrechecks)
    .where(inArray(installCodePrechecks.installCodeId, ids))
    .orderBy(asc(installCodePrechecks.precheckedAt), asc(installCodePrechecks.id));
  for (const row of rows.reverse()) {
    const of = byCode.get(row.installCodeId) ?? { shown: [], decided: undefined };
    if (of.shown.length < SHOWN_PRECHECKS_LIMIT) of.shown.push(row);
    if (row.decision !== null && single.has(row.installCodeId)) of.decided = row;
    byCode.set(row.installCodeId, of);
  }
  return byCode;
}

export const decided: Record<ApprovalDecision, 'approved' | 'denied'> = { approve: 'approved', deny: 'denied' };

/** 409 `approval_pending`, telling the installer when to ask again (the end of its approval-wait bucket). */
export function approvalPendingError(retryAfterSeconds: number = APPROVAL_WAIT_SECONDS): ApiError {
  return new ApiError('approval_pending', undefined, { 'Retry-After': String(retryAfterSeconds) });
}
