import { and, eq, gt } from 'drizzle-orm';
import { wholeSecond } from '../clock.js';
import type { Database } from '../db/client.js';
import { installCodes } from '../db/schema.js';
import { ApiError } from '../errors.js';
import { generateInstallCode, installCodeHint, installCodePrefix } from './install-code-format.js';
import { randomId, sha256Hex } from './secret-hash.js';

export type InstallCodeRow = typeof installCodes.$inferSelect;

export interface IssuedInstallCode {
  code: string;
  hint: string;
  expiresAt: Date;
}

/** A fresh `issued` code; the code itself is returned once and stored only as its hash. */
export async function issueInstallCode(db: Database, prefix: string, now: Date, ttlSeconds: number): Promise<IssuedInstallCode> {
  const code = generateInstallCode(prefix);
  const issued = { code, hint: installCodeHint(code), expiresAt: new Date(wholeSecond(now).getTime() + ttlSeconds * 1000) };
  await db.insert(installCodes).values({
    id: randomId('code_', 12),
    codeHash: sha256Hex(code),
    hint: issued.hint,
    status: 'issued',
    issuedAt: now,
    expiresAt: issued.expiresAt,
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
