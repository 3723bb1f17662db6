import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { activations, installCodePrechecks } from '../../db/schema.js';
import type { ActivationRow } from '../activations.js';
import { SHOWN_PRECHECKS_LIMIT, type InstallCodePrecheckRow } from '../install-code-approval.js';
import type { InstallCodeRow } from '../install-codes.js';
import { SHOWN_CODE_ACTIVATIONS_LIMIT } from '../operator-code-rules.js';

/**
 * What the show of a code adds to its list record (DESIGN §22): its activations, newest first, and, for a code
 * an operator issued with approval, the prechecks waiting for the operator's decision, newest first.
 */
export async function codeDetail(
  db: Database,
  code: InstallCodeRow,
): Promise<{ activations: ActivationRow[]; pendingPrechecks: InstallCodePrecheckRow[] }> {
  const made = await db
    .select()
    .from(activations)
    .where(eq(activations.installCodeId, code.id))
    .orderBy(desc(activations.createdAt), desc(activations.id))
    .limit(SHOWN_CODE_ACTIVATIONS_LIMIT);
  const waiting =
    code.browserSessionHash === null && code.approval === 'pending'
      ? await db
          .select()
          .from(installCodePrechecks)
          .where(
            and(
              eq(installCodePrechecks.installCodeId, code.id),
              code.uses > 1 ? isNull(installCodePrechecks.decision) : undefined,
            ),
          )
          .orderBy(desc(installCodePrechecks.precheckedAt), desc(installCodePrechecks.id))
          .limit(SHOWN_PRECHECKS_LIMIT)
      : [];
  return { activations: made, pendingPrechecks: waiting };
}
