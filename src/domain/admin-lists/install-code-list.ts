import { and, desc, eq, getTableColumns, gt, inArray, lte, not, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { activations, installCodes } from '../../db/schema.js';
import type { ActivationRow } from '../activations/activation-rows.js';
import { codeApproval, decidedPrecheck, decidedPrecheckOfCode, type CodeApproval } from '../install-codes/approval.js';
import type { InstallCodeRow } from '../install-codes/code-problem.js';
import { heldUsesOf, usesLeftCondition } from '../install-codes/fleet-uses.js';
import {
  anyContaining,
  matching,
  newestFirst,
  ofMachine,
  tagged,
  textOrIdMatching,
  type SearchFilter,
} from './list-query.js';
import { pageOf, type Page } from './pagination.js';
import type { TimeRange } from './time-range.js';

/**
 * As an operator sees a code: `expired` is an `issued` code past its expiry, `exhausted` an unexpired `issued`
 * code with `uses` > 1 none of whose uses is free (both derived, never stored).
 */
type InstallCodeListStatus = 'issued' | 'activated' | 'consumed' | 'exhausted' | 'expired' | 'revoked';

/**
 * `search.q` looks in the hint, and at the start of the code's id; the machine filters find the codes an activation of
 * that machine used.
 */
export interface InstallCodeListFilter extends TimeRange, SearchFilter {
  status?: InstallCodeListStatus | undefined;
  /** Part of the hint, e.g. its last group `HX3W8N`; case-insensitive. */
  hint?: string | undefined;
  /** One code by its id (an action answers the code it changed). */
  id?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface InstallCodeListItem {
  code: InstallCodeRow;
  status: InstallCodeListStatus;
  approval: CodeApproval;
  /** The latest activation that used the code, if any. */
  activation: ActivationRow | undefined;
  /** Uses held by activations waiting for confirm whose install token has not expired. */
  usesHeld: number;
}

function installCodeListStatus(code: InstallCodeRow, usesHeld: number, now: Date): InstallCodeListStatus {
  if (code.status !== 'issued') return code.status;
  if (code.expiresAt.getTime() <= now.getTime()) return 'expired';
  return code.uses > 1 && code.usesSpent + usesHeld >= code.uses ? 'exhausted' : 'issued';
}

function statusCondition(status: InstallCodeListStatus, now: Date): SQL | undefined {
  if (status === 'expired') return and(eq(installCodes.status, 'issued'), lte(installCodes.expiresAt, now));
  const usable = and(eq(installCodes.status, 'issued'), gt(installCodes.expiresAt, now));
  if (status === 'issued') return and(usable, usesLeftCondition(now));
  if (status === 'exhausted') return and(usable, not(usesLeftCondition(now)));
  return eq(installCodes.status, status);
}

/** Install codes, newest issued first; never the code itself (the table only has its hash). */
export async function listInstallCodes(
  db: Database,
  filter: InstallCodeListFilter,
  now: Date,
): Promise<Page<InstallCodeListItem>> {
  const page = newestFirst(installCodes.issuedAt, installCodes.id, filter, [
    filter.status ? statusCondition(filter.status, now) : undefined,
    anyContaining([installCodes.hint], filter.hint),
    ...matching([[installCodes.id, filter.id]]),
    textOrIdMatching(installCodes.hint, { column: installCodes.id, prefix: 'ic_' }, filter.q),
    ofMachine(db, installCodes.id, activations.installCodeId, filter),
    tagged(installCodes.tags, filter.tag),
  ]);
  const rows = await db
    .select({ code: getTableColumns(installCodes), decided: { decision: decidedPrecheck.decision } })
    .from(installCodes)
    .leftJoin(decidedPrecheck, decidedPrecheckOfCode)
    .where(page.where)
    .orderBy(...page.orderBy)
    .limit(filter.limit + 1);
  const shown = rows.slice(0, filter.limit).map((row) => row.code);
  // The latest activation of each code alone: a code with many uses may have made thousands.
  const used = shown.length
    ? await db
        .selectDistinctOn([activations.installCodeId])
        .from(activations)
        .where(
          inArray(
            activations.installCodeId,
            shown.map((r) => r.id),
          ),
        )
        .orderBy(activations.installCodeId, desc(activations.createdAt), desc(activations.id))
    : [];
  const latest = new Map<string, ActivationRow>();
  for (const activation of used)
    if (!latest.has(activation.installCodeId)) latest.set(activation.installCodeId, activation);
  const held = await heldUsesOf(db, shown, now);
  return pageOf(
    rows,
    filter.limit,
    ({ code, decided }) => {
      const usesHeld = held.get(code.id) ?? 0;
      return {
        code,
        status: installCodeListStatus(code, usesHeld, now),
        approval: codeApproval(code, decided ?? undefined),
        activation: latest.get(code.id),
        usesHeld,
      };
    },
    ({ code }) => ({ t: code.issuedAt.getTime(), id: code.id }),
  );
}
