import { and, eq, gt } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { browserSessions } from '../../db/schema.js';
import { composedStatement } from '../../db/composed-statement.js';
import { runStatement } from '../../db/statement.js';
import {
  COUNTED_CTE,
  COUNTS_COLUMN,
  countedStatement,
  type BucketCount,
  type BucketsParam,
  type CountedOutcome,
  type RateLimitCheck,
} from '../rate-limits/limiter.js';
import { randomSecret, sha256Hex } from '../tokens/secret-hash.js';

export const BROWSER_SESSION_COOKIE = 'slowdns_browser';

export interface BrowserSession {
  tokenHash: string;
  expiresAt: Date;
}

export interface NewBrowserSession {
  cookieValue: string;
  session: BrowserSession;
}

type CreateParams = BucketsParam & { token_hash: string; now: string; expires_at: string };

const CREATE = composedStatement<CreateParams>()`with ${COUNTED_CTE},
created as (insert into browser_sessions (token_hash, created_at, expires_at) values (:token_hash, :now::timestamptz, :expires_at::timestamptz))
select ${COUNTS_COLUMN}`;

/**
 * A new session, counted in `limits` in the same statement (none created when one is exhausted): the
 * cookie value goes to the browser, only its hash to the database.
 */
export async function openBrowserSession(
  db: Database,
  now: Date,
  ttlSeconds: number,
  limits: RateLimitCheck[],
): Promise<CountedOutcome<NewBrowserSession>> {
  const cookieValue = randomSecret();
  const session = { tokenHash: sha256Hex(cookieValue), expiresAt: new Date(now.getTime() + ttlSeconds * 1000) };
  return countedStatement(db, limits, now, async (buckets) => {
    const [row] = await runStatement<{ counts: BucketCount[] | null }, CreateParams>(db, CREATE, {
      buckets,
      token_hash: session.tokenHash,
      now: now.toISOString(),
      expires_at: session.expiresAt.toISOString(),
    });
    return { counts: row!.counts, value: { cookieValue, session } };
  });
}

/** A new session, counted in no limit. */
export async function createBrowserSession(db: Database, now: Date, ttlSeconds: number): Promise<NewBrowserSession> {
  const { value } = await openBrowserSession(db, now, ttlSeconds, []);
  return value!;
}

/** The hash a session is stored under, for a cookie value that can be one (undefined for none, or one too long to be). */
export function browserSessionHash(cookieValue: string | undefined): string | undefined {
  return !cookieValue || cookieValue.length > 128 ? undefined : sha256Hex(cookieValue);
}

export async function findBrowserSession(
  db: Database,
  cookieValue: string | undefined,
  now: Date,
): Promise<BrowserSession | undefined> {
  const tokenHash = browserSessionHash(cookieValue);
  if (!tokenHash) return undefined;
  const [row] = await db
    .select({ tokenHash: browserSessions.tokenHash, expiresAt: browserSessions.expiresAt })
    .from(browserSessions)
    .where(and(eq(browserSessions.tokenHash, tokenHash), gt(browserSessions.expiresAt, now)));
  return row;
}
