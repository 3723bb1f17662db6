import { and, desc, eq, gt } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { consoleSessions } from '../../db/schema.js';
import { sha256Hex } from '../tokens/secret-hash.js';
import { CONSOLE_IDLE_SECONDS } from './console-sessions.js';
import type { ConsoleRole } from './oidc-settings.js';

/** A live console session as a `root` operator sees it (DESIGN §26): never its cookie, nor the cookie's hash. */
export interface ConsoleSessionSummary {
  /** A handle for ending it: a one-way function of the cookie's hash, so a page never shows what finds the session. */
  handle: string;
  operator: string;
  scope: ConsoleRole;
  /** `token` (a named operator token), `admin_token` (ADMIN_TOKEN), or `sso` (the identity provider). */
  via: 'token' | 'admin_token' | 'sso';
  issuer: string | null;
  name: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

function handleOf(tokenHash: string): string {
  return sha256Hex(`console-session-handle\n${tokenHash}`).slice(0, 24);
}

type SessionRow = typeof consoleSessions.$inferSelect;

function viaOf(row: SessionRow): ConsoleSessionSummary['via'] {
  if (row.oidcSubject !== null) return 'sso';
  return row.operatorTokenId !== null ? 'token' : 'admin_token';
}

async function liveSessions(db: Database, now: Date): Promise<SessionRow[]> {
  const idleSince = new Date(now.getTime() - CONSOLE_IDLE_SECONDS * 1000);
  return db
    .select()
    .from(consoleSessions)
    .where(and(gt(consoleSessions.expiresAt, now), gt(consoleSessions.lastSeenAt, idleSince)))
    .orderBy(desc(consoleSessions.lastSeenAt));
}

const summaryOf = (row: SessionRow): ConsoleSessionSummary => ({
  handle: handleOf(row.tokenHash),
  operator: row.operator,
  scope: row.scope,
  via: viaOf(row),
  issuer: row.oidcIssuer,
  name: row.oidcName,
  createdAt: row.createdAt,
  lastSeenAt: row.lastSeenAt,
  expiresAt: row.expiresAt,
});

/** The console sessions that are live now, the most recently seen first (a service has a handful). */
export async function listConsoleSessions(db: Database, now: Date): Promise<ConsoleSessionSummary[]> {
  return (await liveSessions(db, now)).map(summaryOf);
}

/** Ends the live session a handle names (undefined: none is live): its next request signs in again. */
export async function endConsoleSessionByHandle(
  db: Database,
  handle: string,
  now: Date,
): Promise<ConsoleSessionSummary | undefined> {
  const row = (await liveSessions(db, now)).find((r) => handleOf(r.tokenHash) === handle);
  if (!row) return undefined;
  await db.delete(consoleSessions).where(eq(consoleSessions.tokenHash, row.tokenHash));
  return summaryOf(row);
}
