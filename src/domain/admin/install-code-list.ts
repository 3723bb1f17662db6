import { and, desc, eq, gt, inArray, lte, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { activations, installCodes } from '../../db/schema.js';
import type { ActivationRow } from '../activations.js';
import type { InstallCodeRow } from '../install-codes.js';
import { anyContaining, machineMatching, matching, newestFirst, type SearchFilter } from './list-query.js';
import { pageOf, type Page } from './pagination.js';
import type { TimeRange } from './time-range.js';

/** As an operator sees a code: `expired` is an `issued` code past its expiry (derived, never stored). */
type InstallCodeListStatus = 'issued' | 'activated' | 'consumed' | 'expired' | 'revoked';

/**
 * `search.q` looks in the hint and the code's id; the machine filters find the codes an activation of
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
  /** The latest activation that used the code, if any. */
  activation: ActivationRow | undefined;
}

function installCodeListStatus(code: InstallCodeRow, now: Date): InstallCodeListStatus {
  return code.status === 'issued' && code.expiresAt.getTime() <= now.getTime() ? 'expired' : code.status;
}

function statusCondition(status: InstallCodeListStatus, now: Date): SQL | undefined {
  if (status === 'expired') return and(eq(installCodes.status, 'issued'), lte(installCodes.expiresAt, now));
  if (status === 'issued') return and(eq(installCodes.status, 'issued'), gt(installCodes.expiresAt, now));
  return eq(installCodes.status, status);
}

/** The codes an activation of the machine `search` names used (a semi-join on activations' indexes), or no condition. */
function usedBy(db: Database, search: SearchFilter): SQL | undefined {
  const machine = machineMatching(activations, search);
  return machine.length
    ? inArray(
        installCodes.id,
        db
          .select({ id: activations.installCodeId })
          .from(activations)
          .where(and(...machine)),
      )
    : undefined;
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
    anyContaining([installCodes.hint, installCodes.id], filter.q),
    usedBy(db, filter),
  ]);
  const rows = await db
    .select()
    .from(installCodes)
    .where(page.where)
    .orderBy(...page.orderBy)
    .limit(filter.limit + 1);
  const shown = rows.slice(0, filter.limit);
  const used = shown.length
    ? await db
        .select()
        .from(activations)
        .where(
          inArray(
            activations.installCodeId,
            shown.map((r) => r.id),
          ),
        )
        .orderBy(desc(activations.createdAt))
    : [];
  const latest = new Map<string, ActivationRow>();
  for (const activation of used)
    if (!latest.has(activation.installCodeId)) latest.set(activation.installCodeId, activation);
  return pageOf(
    rows,
    filter.limit,
    (code) => ({ code, status: installCodeListStatus(code, now), activation: latest.get(code.id) }),
    (code) => ({ t: code.issuedAt.getTime(), id: code.id }),
  );
}
