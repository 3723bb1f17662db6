import { and, eq, gt } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { browserSessions } from '../db/schema.js';
import { randomSecret, sha256Hex } from './secret-hash.js';

export const BROWSER_SESSION_COOKIE = 'slowdns_browser';

export interface BrowserSession {
  tokenHash: string;
  expiresAt: Date;
}

/** A new session: the cookie value goes to the browser, only its hash to the database. */
export async function createBrowserSession(db: Database, now: Date, ttlSeconds: number): Promise<{ cookieValue: string; session: BrowserSession }> {
  const cookieValue = randomSecret();
  const session = { tokenHash: sha256Hex(cookieValue), expiresAt: new Date(now.getTime() + ttlSeconds * 1000) };
  await db.insert(browserSessions).values({ ...session, createdAt: now });
  return { cookieValue, session };
}

export async function findBrowserSession(db: Database, cookieValue: string | undefined, now: Date): Promise<BrowserSession | undefined> {
  if (!cookieValue || cookieValue.length > 128) return undefined;
  const [row] = await db
    .select({ tokenHash: browserSessions.tokenHash, expiresAt: browserSessions.expiresAt })
    .from(browserSessions)
    .where(and(eq(browserSessions.tokenHash, sha256Hex(cookieValue)), gt(browserSessions.expiresAt, now)));
  return row;
}
