import { and, count, eq, isNotNull, isNull, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { installCodePrechecks, installCodes } from '../../db/schema.js';
import { afterCursor, encodeCursor, type Page } from '../admin-lists/pagination.js';
import { precheckApproval, prechecksOf, type InstallCodePrecheckRow, type PrecheckApproval } from './approval.js';
import type { InstallCodeRow } from './code-problem.js';

/** A precheck of a code issued with approval as an operator sees it: the whole machine id, and the person's decision on it. */
export interface OperatorPrecheck {
  id: string;
  machineId: string;
  sshFingerprint: string;
  /** The address it came from (after TRUST_PROXY), null when the service could not tell. */
  ip: string | null;
  installerVersion: string;
  precheckedAt: Date;
  approval: PrecheckApproval;
}

/**
 * The prechecks of one code, newest first (at most SHOWN_PRECHECKS_LIMIT), each with the decision on it: what
 * the admin API's code and the console's code view show. Empty for a code issued without approval. A code
 * with `uses` > 1 is decided per precheck by an operator (DESIGN §22: each row's own decision, pending until
 * made); any other code by its one decision on the code (§14).
 */
export async function operatorPrechecksOf(
  db: Database,
  code: Pick<InstallCodeRow, 'id' | 'requireApproval' | 'uses'>,
): Promise<OperatorPrecheck[]> {
  const { shown, decided } = (await prechecksOf(db, [code])).get(code.id) ?? { shown: [], decided: undefined };
  return shown.map((row) => toOperatorPrecheck(row, precheckApproval(code, row, decided)));
}

function toOperatorPrecheck(row: InstallCodePrecheckRow, approval: PrecheckApproval): OperatorPrecheck {
  const { id, machineId, sshFingerprint, ip, installerVersion, precheckedAt } = row;
  return { id, machineId, sshFingerprint, ip, installerVersion, precheckedAt, approval };
}

/** A code whose machines may wait on an operator's or the person's decision. */
type ApprovalCode = Pick<InstallCodeRow, 'id' | 'requireApproval' | 'uses'>;

/**
 * Where the prechecks still waiting on a decision are: those with none, unless the code takes one decision
 * (`uses: 1`) and took it. Read on their own, not among the newest shown, so that none waits out of view.
 */
async function waitingWhere(db: Database, code: ApprovalCode): Promise<SQL | undefined> {
  if (!code.requireApproval) return undefined;
  const of = eq(installCodePrechecks.installCodeId, code.id);
  if (code.uses === 1) {
    const [taken] = await db
      .select({ id: installCodePrechecks.id })
      .from(installCodePrechecks)
      .where(and(of, isNotNull(installCodePrechecks.decision)))
      .limit(1);
    if (taken) return undefined;
  }
  return and(of, isNull(installCodePrechecks.decision));
}

/** How many machines wait on a decision about this code. */
export async function pendingPrecheckCount(db: Database, code: ApprovalCode): Promise<number> {
  const where = await waitingWhere(db, code);
  if (!where) return 0;
  const [row] = await db.select({ n: count() }).from(installCodePrechecks).where(where);
  return row?.n ?? 0;
}

/**
 * The machines waiting on a decision about a code, newest first, one page at a time (`cursor`: the last page's);
 * undefined when there is no such code.
 */
export async function pendingPrechecksOf(
  db: Database,
  installCodeId: string,
  { limit, cursor }: { limit: number; cursor?: string | undefined },
): Promise<Page<OperatorPrecheck> | undefined> {
  const [code] = await db
    .select({ id: installCodes.id, requireApproval: installCodes.requireApproval, uses: installCodes.uses })
    .from(installCodes)
    .where(eq(installCodes.id, installCodeId));
  if (!code) return undefined;
  const where = await waitingWhere(db, code);
  if (!where) return { items: [], nextCursor: null };
  const page = afterCursor(installCodePrechecks.precheckedAt, installCodePrechecks.id, cursor);
  const rows = await db
    .select()
    .from(installCodePrechecks)
    .where(and(where, page.where))
    .orderBy(...page.orderBy)
    .limit(limit + 1);
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map((row) => toOperatorPrecheck(row, 'pending')),
    nextCursor: rows.length > limit && last ? encodeCursor({ t: last.precheckedAt.getTime(), id: last.id }) : null,
  };
}
