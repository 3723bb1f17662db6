import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Database } from '../db/database.js';
import {
  BROWSER_SESSION_COOKIE,
  findBrowserSession,
  type BrowserSession,
} from '../domain/browser-sessions/sessions.js';
import { ApiError } from '../errors.js';

/** The valid `slowdns_browser` session of the request, or 403 `browser_session_required`. */
export async function requireBrowserSession(c: Context, db: Database, now: Date): Promise<BrowserSession> {
  const session = await findBrowserSession(db, getCookie(c, BROWSER_SESSION_COOKIE), now);
  if (!session) throw new ApiError('browser_session_required');
  return session;
}
