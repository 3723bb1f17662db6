import { eq } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { installCodes } from '../../db/schema.js';
import type { ChangeContext } from '../events/event-trail.js';
import { revokeInstallCode } from './revoke.js';
import type { InstallCodeRow } from './code-problem.js';

/**
 * The operator's revoke of a code, saying whether this call made the change (an idempotent repeat did
 * not): the row is locked first, so of two racing revokes exactly one reports `revoked`.
 */
export async function revokeInstallCodeAsOperator(
  db: Database,
  installCodeId: string,
  now: Date,
  context: ChangeContext,
): Promise<{ code: InstallCodeRow; revoked: boolean }> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ status: installCodes.status })
      .from(installCodes)
      .where(eq(installCodes.id, installCodeId))
      .for('update');
    const code = await revokeInstallCode(tx, installCodeId, now, context);
    return { code, revoked: before?.status === 'issued' };
  });
}
