import { and, count, desc, eq, gt, isNotNull, isNull, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { installCodePrechecks, installCodes } from '../../db/schema.js';
import { usesLeftCondition } from '../install-codes/fleet-uses.js';

/**
 * What the console's overview says needs an operator now, counted as the lists it links to count: the codes a
 * machine can still use (the codes list's `issued`: unexpired, not exhausted), and the machines waiting on an
 * operator's decision about a fleet code (DESIGN §22), with the codes they wait on.
 */
export interface WaitingWork {
  usableCodes: number;
  /** Machines waiting on an operator, on every live fleet code. */
  machinesWaiting: number;
  /** The codes they wait on, those with the most waiting first (at most WAITING_CODES_SHOWN). */
  codes: { id: string; hint: string; description: string | null; waiting: number }[];
}

const WAITING_CODES_SHOWN = 10;

export async function waitingWork(db: Database, now: Date): Promise<WaitingWork> {
  const live = and(eq(installCodes.status, 'issued'), gt(installCodes.expiresAt, now));
  const [usable] = await db
    .select({ n: count() })
    .from(installCodes)
    .where(and(live, usesLeftCondition(now)));
  // A `uses: 1` code that took its one decision has nothing left waiting (approval.ts).
  const undecided = or(
    gt(installCodes.uses, 1),
    sql`not exists (select 1 from install_code_prechecks d where d.install_code_id = ${installCodes.id} and d.decision is not null)`,
  );
  const waiting = count(installCodePrechecks.id);
  const codes = await db
    .select({ id: installCodes.id, hint: installCodes.hint, description: installCodes.description, waiting })
    .from(installCodes)
    .innerJoin(installCodePrechecks, eq(installCodePrechecks.installCodeId, installCodes.id))
    .where(
      and(
        live,
        eq(installCodes.requireApproval, true),
        isNotNull(installCodes.operator),
        isNull(installCodePrechecks.decision),
        undecided,
      ),
    )
    .groupBy(installCodes.id)
    .orderBy(desc(waiting), installCodes.id);
  return {
    usableCodes: usable?.n ?? 0,
    machinesWaiting: codes.reduce((sum, c) => sum + c.waiting, 0),
    codes: codes.slice(0, WAITING_CODES_SHOWN),
  };
}
