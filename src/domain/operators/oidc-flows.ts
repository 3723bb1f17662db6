import { and, eq, gt, lt } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { oidcFlows } from '../../db/schema.js';
import { randomSecret, sha256Hex } from '../tokens/secret-hash.js';

/** A sign-in must come back from the provider within this long (DESIGN §26). */
export const OIDC_FLOW_SECONDS = 10 * 60;

/** What the callback checks the provider's answer against. */
export interface OidcFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
}

/** Keeps a new flow, keyed by the hash of a fresh cookie value (answered, to go in the `SameSite=Lax` cookie). */
export async function openOidcFlow(db: Database, flow: OidcFlow, now: Date): Promise<string> {
  const cookieValue = randomSecret();
  await db.insert(oidcFlows).values({
    cookieHash: sha256Hex(cookieValue),
    ...flow,
    createdAt: now,
    expiresAt: new Date(now.getTime() + OIDC_FLOW_SECONDS * 1000),
  });
  return cookieValue;
}

/** Takes the flow a cookie names, once: the row is deleted as it is read, so a second callback finds nothing. */
export async function takeOidcFlow(
  db: Database,
  cookieValue: string | undefined,
  now: Date,
): Promise<OidcFlow | undefined> {
  if (!cookieValue || cookieValue.length > 128) return undefined;
  const [row] = await db
    .delete(oidcFlows)
    .where(and(eq(oidcFlows.cookieHash, sha256Hex(cookieValue)), gt(oidcFlows.expiresAt, now)))
    .returning();
  return row
    ? { state: row.state, nonce: row.nonce, codeVerifier: row.codeVerifier, returnTo: row.returnTo }
    : undefined;
}

/** Flows never finished (for pruning). */
export async function pruneOidcFlows(db: Database, now: Date): Promise<number> {
  const removed = await db
    .delete(oidcFlows)
    .where(lt(oidcFlows.expiresAt, now))
    .returning({ key: oidcFlows.cookieHash });
  return removed.length;
}
