import type { installCodes } from '../../db/schema.js';
import { ApiError } from '../../errors.js';

export type InstallCodeRow = typeof installCodes.$inferSelect;

/** The error a code that cannot be used gives, or undefined when it is `issued` and unexpired. */
export function installCodeProblem(
  row:
    | (Pick<InstallCodeRow, 'status' | 'expiresAt'> & {
        /** The one decision a `uses: 1` code took (codeApproval's), when the caller read it. */
        decision?: 'approved' | 'denied' | null | undefined;
      })
    | undefined,
  now: Date,
): ApiError | undefined {
  if (!row) return new ApiError('install_code_not_found');
  // Denied by the person: not 410, so that an installer can tell the person said no (DESIGN §14).
  if (row.decision === 'denied') return new ApiError('approval_denied');
  if (row.status === 'revoked') return new ApiError('install_code_revoked');
  if (row.status !== 'issued') return new ApiError('install_code_unavailable');
  if (row.expiresAt.getTime() <= now.getTime()) return new ApiError('install_code_expired');
  return undefined;
}
