import { eq } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { activations, installCodes, servers } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { installTokenUsable, type ActivationRow } from './activation-rows.js';
import type { InstallCodeRow } from '../install-codes/code-problem.js';
import type { ServerRow } from '../servers/registration.js';
import { assertInstallTokenJti } from '../tokens/install-step-tokens.js';

export interface InstallStatus {
  activation: ActivationRow;
  code: InstallCodeRow;
  server: ServerRow | undefined;
  tokenExpired: boolean;
  /** What a release now would answer in `install_code_restored`. */
  releaseRestoresCode: boolean;
}

/**
 * An install read back by its activation id and install token (the token's jti must be the row's, so
 * only the installer that activated can read it). Changes nothing.
 */
export async function readInstallStatus(
  db: Database,
  activationId: string,
  jti: string,
  now: Date,
): Promise<InstallStatus> {
  const [row] = await db
    .select({ activation: activations, code: installCodes, server: servers })
    .from(activations)
    .innerJoin(installCodes, eq(installCodes.id, activations.installCodeId))
    .leftJoin(servers, eq(servers.activationId, activations.id))
    .where(eq(activations.id, activationId));
  if (!row) throw new ApiError('activation_not_found');
  const { activation, code } = row;
  assertInstallTokenJti(activation, jti);
  return {
    activation,
    code,
    server: row.server ?? undefined,
    tokenExpired: activation.installTokenExpiresAt.getTime() <= now.getTime(),
    // The same conditions releaseActivation applies (its update of the code states the code's half in SQL).
    releaseRestoresCode:
      activation.status === 'activated' &&
      installTokenUsable(activation, now) &&
      code.status === 'activated' &&
      code.expiresAt.getTime() > now.getTime(),
  };
}
