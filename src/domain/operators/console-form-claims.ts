import type { Database } from '../../db/database.js';
import { consoleFormClaims } from '../../db/schema.js';
import { sha256Hex } from '../tokens/secret-hash.js';

/**
 * Claims a console form's single-use token (DESIGN §22: a create form sent twice makes one code at most):
 * true the first time, false ever after. Kept as the token's hash, deleted with its session.
 */
export async function claimConsoleForm(
  db: Database,
  { sessionTokenHash, token, now }: { sessionTokenHash: string; token: string; now: Date },
): Promise<boolean> {
  const claimed = await db
    .insert(consoleFormClaims)
    .values({ tokenHash: sha256Hex(token), sessionTokenHash, claimedAt: now })
    .onConflictDoNothing()
    .returning({ tokenHash: consoleFormClaims.tokenHash });
  return claimed.length === 1;
}
