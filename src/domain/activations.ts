import { and, eq, gt, isNull } from 'drizzle-orm';
import { wholeSecond } from '../clock.js';
import type { Database } from '../db/client.js';
import { activations, installCodes, servers } from '../db/schema.js';
import { ApiError } from '../errors.js';
import { claimInstallCode, installCodeProblem, type InstallCodeRow } from './install-codes.js';
import { randomId, randomSecret } from './secret-hash.js';
import { assertInstallTokenJti } from './tokens.js';

export type ActivationRow = typeof activations.$inferSelect;

export interface MachineBinding {
  hostname: string;
  publicIp: string;
  machineId: string;
  sshFingerprint: string;
}

export interface NewActivation extends MachineBinding {
  codeHash: string;
  requestedRef: string;
  installerVersion: string;
}

/**
 * In one transaction: the code goes `issued` → `activated` and the activation is created with the
 * jti of its single-use install token. Exactly one of many concurrent activations of a code succeeds.
 */
export async function createActivation(db: Database, input: NewActivation, now: Date, tokenTtlSeconds: number): Promise<ActivationRow> {
  return db.transaction(async (tx) => {
    const code = await claimInstallCode(tx, input.codeHash, now);
    if (!code) {
      const [current] = await tx.select().from(installCodes).where(eq(installCodes.codeHash, input.codeHash));
      throw installCodeProblem(current, now) ?? new ApiError('install_code_unavailable');
    }
    const [row] = await tx
      .insert(activations)
      .values({
        id: randomId('act_', 8),
        installCodeId: code.id,
        status: 'activated',
        hostname: input.hostname,
        publicIp: input.publicIp,
        machineId: input.machineId,
        sshFingerprint: input.sshFingerprint,
        requestedRef: input.requestedRef,
        installerVersion: input.installerVersion,
        installTokenJti: randomSecret(),
        installTokenExpiresAt: new Date(wholeSecond(now).getTime() + tokenTtlSeconds * 1000),
        createdAt: now,
      })
      .returning();
    return row!;
  });
}

async function findActivation(db: Database, activationId: string): Promise<ActivationRow> {
  const [row] = await db.select().from(activations).where(eq(activations.id, activationId));
  if (!row) throw new ApiError('activation_not_found');
  return row;
}

/**
 * Consumes the install token in the same statement that confirms the activation (the token's jti must
 * match, be unused and unexpired), then marks the code `consumed`. Usable once, across all instances.
 */
export async function confirmActivation(db: Database, activationId: string, jti: string, now: Date): Promise<ActivationRow> {
  return db.transaction(async (tx) => {
    const [confirmed] = await tx
      .update(activations)
      .set({ status: 'confirmed', installTokenUsedAt: now, confirmedAt: now })
      .where(
        and(
          eq(activations.id, activationId),
          eq(activations.installTokenJti, jti),
          eq(activations.status, 'activated'),
          isNull(activations.installTokenUsedAt),
          gt(activations.installTokenExpiresAt, now),
        ),
      )
      .returning();
    if (confirmed) {
      await tx.update(installCodes).set({ status: 'consumed' }).where(eq(installCodes.id, confirmed.installCodeId));
      return confirmed;
    }
    const current = await findActivation(tx, activationId);
    assertInstallTokenJti(current, jti);
    if (current.status === 'confirmed') throw new ApiError('install_token_used');
    if (current.status === 'released') throw new ApiError('activation_released');
    throw new ApiError('install_token_invalid');
  });
}

/**
 * Releases an unconfirmed activation. The code goes back to `issued`, keeping its original expiry,
 * only while the install token is unused and unexpired and the code itself has not expired.
 * A server registered for the activation is revoked with it: a failed install must not leave a live
 * agent token behind. Idempotent: releasing a released activation answers what the first release answered.
 */
export async function releaseActivation(db: Database, activationId: string, now: Date): Promise<{ activation: ActivationRow; codeRestored: boolean }> {
  return db.transaction(async (tx) => {
    // Locked before the server, in the order register takes them, so a concurrent register waits and then sees `released`.
    const [current] = await tx.select().from(activations).where(eq(activations.id, activationId)).for('update');
    if (!current) throw new ApiError('activation_not_found');
    if (current.status === 'confirmed') throw new ApiError('activation_confirmed');
    if (current.status === 'released') return { activation: current, codeRestored: current.codeRestored ?? false };

    // A failed install leaves no live agent behind: the server registered for it is revoked with it.
    await tx
      .update(servers)
      .set({ status: 'revoked', revokedAt: now })
      .where(and(eq(servers.activationId, activationId), eq(servers.status, 'active')));

    const tokenUsable = current.installTokenUsedAt === null && current.installTokenExpiresAt.getTime() > now.getTime();
    let restored: InstallCodeRow | undefined;
    if (tokenUsable) {
      [restored] = await tx
        .update(installCodes)
        .set({ status: 'issued' })
        .where(and(eq(installCodes.id, current.installCodeId), eq(installCodes.status, 'activated'), gt(installCodes.expiresAt, now)))
        .returning();
    }
    const [released] = await tx
      .update(activations)
      .set({ status: 'released', releasedAt: now, codeRestored: restored !== undefined })
      .where(eq(activations.id, activationId))
      .returning();
    return { activation: released!, codeRestored: restored !== undefined };
  });
}
