import { and, eq, gt } from 'drizzle-orm';
import { toIsoOffset, wholeSecond } from '../clock.js';
import type { Database } from '../db/client.js';
import { installCodes } from '../db/schema.js';
import { ApiError } from '../errors.js';
import { recordEvent, type ChangeContext } from './events.js';
import { generateInstallCode, installCodeHint, installCodePrefix } from './install-code-format.js';
import { randomId, sha256Hex } from './secret-hash.js';

export type InstallCodeRow = typeof installCodes.$inferSelect;

export interface IssuedInstallCode {
  /** The public handle (`ic_` + 16 hex), which is not the code. */
  id: string;
  code: string;
  hint: string;
  expiresAt: Date;
}

/**
 * A fresh `issued` code; the code itself is returned once and stored only as its hash, next to the
 * hash of the browser session that asked for it (whose page may then watch and cancel it).
 */
export async function issueInstallCode(db: Database, prefix: string, now: Date, ttlSeconds: number, browserSessionHash: string, context: ChangeContext): Promise<IssuedInstallCode> {
  const code = generateInstallCode(prefix);
  const issued = { id: randomId('ic_', 8), code, hint: installCodeHint(code), expiresAt: new Date(wholeSecond(now).getTime() + ttlSeconds * 1000) };
  await db.transaction(async (tx) => {
    await tx.insert(installCodes).values({
      id: issued.id,
      codeHash: sha256Hex(code),
      hint: issued.hint,
      status: 'issued',
      issuedAt: now,
      expiresAt: issued.expiresAt,
      browserSessionHash,
    });
    await recordEvent(tx, context, now, { type: 'install_code.issued', installCodeId: issued.id, data: { hint: issued.hint, expires_at: toIsoOffset(issued.expiresAt) } });
  });
  return issued;
}

export async function findInstallCode(db: Database, normalisedCode: string, prefix: string): Promise<InstallCodeRow | undefined> {
  // A code with another product's prefix cannot exist here: no need to ask the database.
  if (installCodePrefix(normalisedCode) !== prefix) return undefined;
  const [row] = await db.select().from(installCodes).where(eq(installCodes.codeHash, sha256Hex(normalisedCode)));
  return row;
}

/** The error a code that cannot be used gives, or undefined when it is `issued` and unexpired. */
export function installCodeProblem(row: InstallCodeRow | undefined, now: Date): ApiError | undefined {
  if (!row) return new ApiError('install_code_not_found');
  if (row.status === 'revoked') return new ApiError('install_code_revoked');
  if (row.status !== 'issued') return new ApiError('install_code_unavailable');
  if (row.expiresAt.getTime() <= now.getTime()) return new ApiError('install_code_expired');
  return undefined;
}

/** `issued` → `activated` as one conditional update: of many concurrent callers exactly one wins. */
export async function claimInstallCode(db: Database, codeHash: string, now: Date): Promise<InstallCodeRow | undefined> {
  const [row] = await db
    .update(installCodes)
    .set({ status: 'activated' })
    .where(and(eq(installCodes.codeHash, codeHash), eq(installCodes.status, 'issued'), gt(installCodes.expiresAt, now)))
    .returning();
  return row;
}

/**
 * `issued` → `revoked` (expired or not): the code can no longer be prechecked or activated (410
 * `install_code_revoked`). Idempotent: a revoked code answers as it is, with no second event. A code an
 * activation holds (`activated`, `consumed`) cannot be revoked: release the activation instead.
 */
export async function revokeInstallCode(db: Database, installCodeId: string, now: Date, context: ChangeContext): Promise<InstallCodeRow> {
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
    throw new ApiError('install_code_unavailable', 'This install code is in use by an activation: release the activation instead.');
  });
}

export interface PrecheckSighting {
  machineId: string;
  sshFingerprint: string;
  /** The client address the precheck came from, as the service saw it; null when it could not tell. */
  ip: string | null;
}

/** Notes the machine that prechecked a still-`issued` code, so the page that issued it can say who did. */
export async function recordPrecheck(db: Database, codeId: string, sighting: PrecheckSighting, now: Date): Promise<void> {
  await db
    .update(installCodes)
    .set({ precheckedAt: now, precheckMachineId: sighting.machineId, precheckSshFingerprint: sighting.sshFingerprint, precheckIp: sighting.ip })
    .where(and(eq(installCodes.id, codeId), eq(installCodes.status, 'issued')));
}
