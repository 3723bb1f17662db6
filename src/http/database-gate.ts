import type { MiddlewareHandler } from 'hono';
import type { DatabaseAvailability } from '../db/availability.js';
import { isDatabaseUnavailable } from '../db/database-errors.js';
import { ApiError } from '../errors.js';
import type { AppEnv } from './app-env.js';
import { deadlineWatch, EXPIRED } from './deadline-watch.js';

/** What every 503 says in `Retry-After`: an unavailable database is probed at least once a second, so an installer told 1 s reaches a promoted primary within about a second of its accepting writes. */
const RETRY_AFTER_SECONDS = '1';

export const serviceUnavailable = (message?: string) =>
  new ApiError('service_unavailable', message, { 'Retry-After': RETRY_AFTER_SECONDS });

/**
 * How long a request may wait on the database before the database itself is asked (one probe on a
 * connection of its own): answered, the request keeps waiting (busy, not gone); not answered, 503.
 * Deadline plus the watch's lateness (at most 50 ms, deadline-watch.ts) plus the probe's own limit stay
 * under the 2 s the service promises for its 503.
 */
const REQUEST_DEADLINE_MS = 800;

/** Routes that answer without the database, so an outage never holds them back. */
function needsNoDatabase(path: string): boolean {
  return (
    path === '/api/v2/livez' ||
    path === '/api/v2/readyz' ||
    path === '/openapi.json' ||
    path === '/.well-known/jwks.json' ||
    path === '/docs' ||
    path.startsWith('/docs/') ||
    path === '/slowdns/activate.sh' ||
    path === '/slowdns/activate.sh.sha256' ||
    /^\/slowdns\/[^/]+\.(js|css)$/.test(path)
  );
}

/**
 * The database failing is an answer, not a hang: while it is known to be unavailable a request is
 * answered 503 at once; a request still waiting at the deadline is answered 503 unless a probe shows the
 * database alive. The abandoned work finishes (or fails) in the background; the connection limits of
 * src/db/client.ts keep it from piling up. A request that failed as unreachable triggers a probe.
 */
export function databaseGate(
  availability: DatabaseAvailability,
  deadlineMs = REQUEST_DEADLINE_MS,
): MiddlewareHandler<AppEnv> {
  const deadlines = deadlineWatch(deadlineMs);
  return async (c, next) => {
    if (needsNoDatabase(c.req.path)) return next();
    if (!availability.available) throw serviceUnavailable();
    const work = next().then(() => {
      if (c.error && isDatabaseUnavailable(c.error)) availability.reportFailure();
    });
    if ((await deadlines.race(work)) !== EXPIRED) return;
    if (await availability.check()) return work;
    work.catch(() => {});
    throw serviceUnavailable();
  };
}
