import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { installCodes } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { recordEvent, type ChangeContext } from '../events/event-trail.js';
import type { InstallCodeRow } from './code-problem.js';

/**
 * `issued` → `revoked` (expired or not): the code can no longer be prechecked or activated (410
 * `install_code_revoked`). Idempotent: a revoked code answers as it is, with no second event. A code an
 * activation holds (`activated`, `consumed`) cannot be revoked: release the activation instead.
 */
export async function revokeInstallCode(
  db: Database,
  installCodeId: string,
  now: Date,
  context: ChangeContext,
): Promise<InstallCodeRow> {
  return db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(installCodes)
      .set({ status: 'revoked', revokedAt: now })
      .where(and(eq(installCodes.id, installCodeId), eq(installCodes.status, 'issued')))
      .returning();
    if (revoked) {
      await recordEvent(tx, context, now, { type: 'install_code.revoked', installCodeId });
      return revoked;
    }
    const [current] = await tx.select().from(installCodes).where(eq(installCodes.id, installCodeId));
    if (!current) throw new ApiError('install_code_not_found', 'No install code has this id.');
    if (current.status === 'revoked') return current;
    throw new ApiError(
      'install_code_unavailable',
      'This install code is in use by an activation: release the activation instead.',
    );
  });
}
