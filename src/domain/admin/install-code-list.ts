import { and, desc, eq, gt, ilike, inArray, lte, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { activations, installCodes } from '../../db/schema.js';
import type { ActivationRow } from '../activations.js';
import type { InstallCodeRow } from '../install-codes.js';
import { matching, newestFirst } from './list-query.js';
import { pageOf, type Page } from './pagination.js';
import type { TimeRange } from './time-range.js';

/** As an operator sees a code: `expired` is an `issued` code past its expiry (derived, never stored). */
export type InstallCodeListStatus = 'issued' | 'activated' | 'consumed' | 'expired' | 'revoked';

export interface InstallCodeListFilter extends TimeRange {
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

export function installCodeListStatus(code: InstallCodeRow, now: Date): InstallCodeListStatus {
  return code.status === 'issued' && code.expiresAt.getTime() <= now.getTime() ? 'expired' : code.status;
}

function statusCondition(status: InstallCodeListStatus, now: Date): SQL | undefined {
  if (status === 'expired') return and(eq(installCodes.status, 'issued'), lte(installCodes.expiresAt, now));
  if (status === 'issued') return and(eq(installCodes.status, 'issued'), gt(installCodes.expiresAt, now));
  return eq(installCodes.status, status);
}

/** `%` and `_` typed by an operator are letters, not wildcards. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Install codes, newest issued first; never the code itself (the table only has its hash). */
export async function listInstallCodes(db: Database, filter: InstallCodeListFilter, now: Date): Promise<Page<InstallCodeListItem>> {
  const page = newestFirst(installCodes.issuedAt, installCodes.id, filter, [
    filter.status ? statusCondition(filter.status, now) : undefined,
    filter.hint ? ilike(installCodes.hint, containing(filter.hint)) : undefined,
    ...matching([[installCodes.id, filter.id]]),
  ]);
  const rows = await db
    .select()
    .from(installCodes)
    .where(page.where)
    .orderBy(...page.orderBy)
    .limit(filter.limit + 1);
  const shown = rows.slice(0, filter.limit);
  const used = shown.length
    ? await db.select().from(activations).where(inArray(activations.installCodeId, shown.map((r) => r.id))).orderBy(desc(activations.createdAt))
    : [];
  const latest = new Map<string, ActivationRow>();
  for (const activation of used) if (!latest.has(activation.installCodeId)) latest.set(activation.installCodeId, activation);
  return pageOf(
    rows,
    filter.limit,
    (code) => ({ code, status: installCodeListStatus(code, now), activation: latest.get(code.id) }),
    (code) => ({ t: code.issuedAt.getTime(), id: code.id }),
  );
}
