import { and, eq, gt, lt, or } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { consoleSessions, operatorTokens } from '../../db/schema.js';
import { randomSecret, sha256Hex } from '../tokens/secret-hash.js';
import type { ConsoleRole } from './oidc-settings.js';
import type { OperatorTokenScope } from './operator-tokens.js';

/** A console session ends after this long without a request… */
export const CONSOLE_IDLE_SECONDS = 30 * 60;
/** …and after this long whatever its use: then the operator signs in again. */
export const CONSOLE_MAX_SECONDS = 12 * 3600;
/** `last_seen_at` is moved at most this often: a page view costs a write a minute, not one a request. */
const LAST_SEEN_GRANULARITY_MS = 60_000;

/** A person signed in by the identity provider (DESIGN §26): who they are is (`issuer`, `subject`). */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
}

/**
 * Who a session acts as: a named operator token, `root` (ADMIN_TOKEN) with the hash of the token it was
 * opened with (`KeyedHashes.rootToken`: keyed by KEY_ENCRYPTION_KEY when one is set), or a person the
 * identity provider signed in.
 */
export type ConsoleCredential = { operatorTokenId: string } | { rootTokenHash: string } | { oidc: OidcIdentity };

export interface ConsoleSession {
  tokenHash: string;
  operator: string;
  /** What §17 allows: `read` or `write` (a `root` operator writes). */
  scope: OperatorTokenScope;
  /** A `root` operator (DESIGN §26): besides writing, manages operator tokens and console sessions. */
  root: boolean;
  /** For a person the identity provider signed in: its issuer (events' `operator_issuer`). */
  issuer?: string;
  /** The per-session token each form carries (CSRF): derived from the cookie, so never stored. */
  formToken: string;
}

/** How a person signed in by the provider is named in events and pages: their email, else their `sub`. */
export function oidcOperatorName(identity: OidcIdentity): string {
  return identity.email ?? identity.subject;
}

/** The form token of a session: a one-way function of its cookie, which a page of another session cannot know. */
function formTokenOf(cookieValue: string): string {
  return sha256Hex(`console-form\n${cookieValue}`);
}

/** Opens a session for an operator whose token was just checked: the cookie value goes to the browser, its hash to the table. */
export async function openConsoleSession(
  db: Database,
  who: { operator: string; scope: ConsoleRole; credential: ConsoleCredential; maxSeconds?: number },
  now: Date,
): Promise<{ cookieValue: string; maxSeconds: number }> {
  const cookieValue = randomSecret();
  const oidc = 'oidc' in who.credential ? who.credential.oidc : undefined;
  const maxSeconds = Math.min(who.maxSeconds ?? CONSOLE_MAX_SECONDS, CONSOLE_MAX_SECONDS);
  await db.insert(consoleSessions).values({
    tokenHash: sha256Hex(cookieValue),
    operator: who.operator,
    scope: who.scope,
    operatorTokenId: 'operatorTokenId' in who.credential ? who.credential.operatorTokenId : null,
    rootTokenHash: 'rootTokenHash' in who.credential ? who.credential.rootTokenHash : null,
    oidcIssuer: oidc?.issuer ?? null,
    oidcSubject: oidc?.subject ?? null,
    oidcEmail: oidc?.email ?? null,
    oidcName: oidc?.name ?? null,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + maxSeconds * 1000),
  });
  return { cookieValue, maxSeconds };
}

/**
 * The live session a cookie names, or undefined: unknown, past its absolute end, idle too long, its
 * operator token revoked or expired, or (root) opened with an ADMIN_TOKEN that is no longer the one set:
 * `rootTokenHash` is the hash of the one set now (undefined: none), so a new ADMIN_TOKEN, or a new
 * KEY_ENCRYPTION_KEY that keys the hash, ends root's sessions. A live session is marked seen (at most once a minute).
 */
export async function findConsoleSession(
  db: Database,
  cookieValue: string | undefined,
  now: Date,
  rootTokenHash: string | undefined,
): Promise<ConsoleSession | undefined> {
  if (!cookieValue || cookieValue.length > 128) return undefined;
  const tokenHash = sha256Hex(cookieValue);
  const idleSince = new Date(now.getTime() - CONSOLE_IDLE_SECONDS * 1000);
  const [row] = await db
    .select({
      session: consoleSessions,
      tokenRevokedAt: operatorTokens.revokedAt,
      tokenExpiresAt: operatorTokens.expiresAt,
    })
    .from(consoleSessions)
    .leftJoin(operatorTokens, eq(operatorTokens.id, consoleSessions.operatorTokenId))
    .where(
      and(
        eq(consoleSessions.tokenHash, tokenHash),
        gt(consoleSessions.expiresAt, now),
        gt(consoleSessions.lastSeenAt, idleSince),
      ),
    );
  if (!row) return undefined;
  const { session } = row;
  if (
    session.operatorTokenId !== null &&
    (row.tokenRevokedAt || (row.tokenExpiresAt && row.tokenExpiresAt.getTime() <= now.getTime()))
  )
    return undefined;
  if (session.rootTokenHash !== null && session.rootTokenHash !== rootTokenHash) return undefined;
  if (now.getTime() - session.lastSeenAt.getTime() >= LAST_SEEN_GRANULARITY_MS) {
    await db
      .update(consoleSessions)
      .set({ lastSeenAt: now })
      .where(and(eq(consoleSessions.tokenHash, tokenHash), lt(consoleSessions.lastSeenAt, now)));
  }
  return {
    tokenHash,
    operator: session.operator,
    scope: session.scope === 'root' ? 'write' : session.scope,
    root: session.scope === 'root',
    ...(session.oidcIssuer === null ? {} : { issuer: session.oidcIssuer }),
    formToken: formTokenOf(cookieValue),
  };
}

/** Signs out: the session is gone, whatever state it was in. */
export async function endConsoleSession(db: Database, tokenHash: string): Promise<void> {
  await db.delete(consoleSessions).where(eq(consoleSessions.tokenHash, tokenHash));
}

/** Sessions past their absolute end or idle too long (for pruning); a revoked token's go with the token's row or at their end. */
export async function pruneConsoleSessions(db: Database, now: Date): Promise<number> {
  const idleSince = new Date(now.getTime() - CONSOLE_IDLE_SECONDS * 1000);
  const removed = await db
    .delete(consoleSessions)
    .where(or(lt(consoleSessions.expiresAt, now), lt(consoleSessions.lastSeenAt, idleSince)))
    .returning({ tokenHash: consoleSessions.tokenHash });
  return removed.length;
}
