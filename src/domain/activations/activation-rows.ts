import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { activations } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { sha256Hex } from '../tokens/secret-hash.js';

export type ActivationRow = typeof activations.$inferSelect;

export interface MachineBinding {
  hostname: string;
  publicIp: string;
  machineId: string;
  sshFingerprint: string;
}

export interface NewActivation extends MachineBinding {
  codeHash: string;
  /** The jti of the precheck token presented. */
  precheckJti: string;
  /** The precheck id its token carries (a code issued with approval): the claim needs the code approved for it. */
  precheckId?: string | undefined;
  /** Its token's hashed client key of the precheck (absent in a token made before it was carried). */
  precheckClientKeyHash?: string | undefined;
  requestedRef: string;
  installerVersion: string;
  /** The machine proved its SSH host key at this activate (DESIGN §24). */
  sshKeyProven: boolean;
  /** Enrolled by a workload identity (DESIGN §25): whom its token named (for the events) and the tags from its claims. */
  identity?: { iss: string; sub: string; tags: Record<string, string> } | undefined;
}

/**
 * A new (or repeated) activation, with the jti its install token is signed with: in clear only here, the
 * row keeps its hash. `duplicateDetected`: this activate made it and found its identity in use (§16).
 */
export type CreatedActivation = ActivationRow & { installTokenJti: string; duplicateDetected?: boolean };

/**
 * The install token's jti, derived from the precheck token's own jti and the activation id: a repeated
 * activate (same precheck token) signs the same jti again, yet the database, which keeps only hashes of
 * both jtis, cannot rebuild it.
 */
export function installTokenJtiFor(precheckJti: string, activationId: string): string {
  return sha256Hex(`slowdns install-token jti\0${precheckJti}\0${activationId}`);
}

/** The install token is neither consumed nor expired: the first condition for restoring the code on release. */
export function installTokenUsable(activation: ActivationRow, now: Date): boolean {
  return activation.installTokenUsedAt === null && activation.installTokenExpiresAt.getTime() > now.getTime();
}

/**
 * The activation that this same activate made before (an installer retrying after a lost answer): same
 * code, same precheck token, same body, and still unconfirmed, unreleased and with its install token
 * unused and unexpired. Read with a lock, so a confirm or release in progress is waited for: it is
 * either before the read (and no activation is handed out again) or after it.
 */
export async function findRepeatedActivation(
  tx: Database,
  installCodeId: string,
  input: NewActivation,
  now: Date,
): Promise<ActivationRow | undefined> {
  const [row] = await tx
    .select()
    .from(activations)
    .where(
      and(
        eq(activations.installCodeId, installCodeId),
        eq(activations.precheckJtiHash, sha256Hex(input.precheckJti)),
        eq(activations.status, 'activated'),
        isNull(activations.installTokenUsedAt),
        gt(activations.installTokenExpiresAt, now),
        eq(activations.hostname, input.hostname),
        eq(activations.publicIp, input.publicIp),
        eq(activations.machineId, input.machineId),
        eq(activations.sshFingerprint, input.sshFingerprint),
        // A proven activation is repeated only by an activate that proves the key again (ECDSA signs anew each time).
        eq(activations.sshKeyProven, input.sshKeyProven),
        eq(activations.requestedRef, input.requestedRef),
        eq(activations.installerVersion, input.installerVersion),
      ),
    )
    .for('update');
  return row;
}

export async function findActivation(db: Database, activationId: string): Promise<ActivationRow> {
  const [row] = await db.select().from(activations).where(eq(activations.id, activationId));
  if (!row) throw new ApiError('activation_not_found');
  return row;
}
