import { and, inArray, lt, notExists, sql, eq } from 'drizzle-orm';
import type { Clock } from '../clock.js';
import { PRUNE_LOCK, tryWithAdvisoryLock } from '../db/advisory-locks.js';
import type { Database } from '../db/client.js';
import { activations, browserSessions, events, installCodes, rateLimitBuckets } from '../db/schema.js';
import { errorFields, type Logger } from '../logger.js';
import { pruneConsoleSessions } from './operators/console-sessions.js';
import { startPeriodicPass } from './periodic-pass.js';
import { DAY_SECONDS } from './rate-limits/policies.js';

/** Day buckets end within a day; two days keeps yesterday's counts for anyone looking into an incident. */
const BUCKET_RETENTION_SECONDS = 2 * DAY_SECONDS;
/** A never-used code is kept a week after it expired, so "expired" (410) can still be told from "unknown" (404). */
const UNUSED_CODE_RETENTION_SECONDS = 7 * DAY_SECONDS;
export const PRUNE_INTERVAL_MS = 10 * 60 * 1000;
/** `EVENT_RETENTION_DAYS` by default. */
const DEFAULT_EVENT_RETENTION_DAYS = 90;

/** One instance prunes at a time; the id is kept with every other lock id in db/advisory-locks.ts. */
export { PRUNE_LOCK };

export interface PruneResult {
  buckets: number;
  sessions: number;
  installCodes: number;
  events: number;
}

const before = (now: Date, seconds: number) => new Date(now.getTime() - seconds * 1000);

/**
 * Deletes rate-limit buckets older than two days, expired browser and console sessions, install codes that
 * expired more than a week ago without ever being activated (issued or revoked), and events older
 * than the event retention. Codes an activation refers to stay: they are the history of a server.
 */
async function pruneExpired(
  db: Database,
  now: Date,
  eventRetentionDays = DEFAULT_EVENT_RETENTION_DAYS,
): Promise<PruneResult> {
  const buckets = await db
    .delete(rateLimitBuckets)
    .where(lt(rateLimitBuckets.bucketStart, before(now, BUCKET_RETENTION_SECONDS)))
    .returning({ limitName: rateLimitBuckets.limitName });
  const sessions = await db
    .delete(browserSessions)
    .where(lt(browserSessions.expiresAt, now))
    .returning({ tokenHash: browserSessions.tokenHash });
  const consoleSessionsPruned = await pruneConsoleSessions(db, now);
  const codes = await db
    .delete(installCodes)
    .where(
      and(
        inArray(installCodes.status, ['issued', 'revoked']),
        lt(installCodes.expiresAt, before(now, UNUSED_CODE_RETENTION_SECONDS)),
        notExists(db.select({ one: sql`1` }).from(activations).where(eq(activations.installCodeId, installCodes.id))),
      ),
    )
    .returning({ id: installCodes.id });
  const pruned = await db
    .delete(events)
    .where(lt(events.occurredAt, before(now, eventRetentionDays * DAY_SECONDS)))
    .returning({ id: events.id });
  return {
    buckets: buckets.length,
    sessions: sessions.length + consoleSessionsPruned,
    installCodes: codes.length,
    events: pruned.length,
  };
}

/** One pruning pass under the advisory lock; undefined when another instance is pruning right now. */
export function pruneOnce(
  db: Database,
  now: Date,
  eventRetentionDays = DEFAULT_EVENT_RETENTION_DAYS,
): Promise<PruneResult | undefined> {
  return tryWithAdvisoryLock(db, PRUNE_LOCK, (tx) => pruneExpired(tx, now, eventRetentionDays));
}

export interface PruningSchedule {
  /** Stops the timer and waits for a pass in progress, so the database can close after it. */
  stop(): Promise<void>;
}

/** Prunes every `everyMs` on an unref'd timer: it never keeps the process alive. */
export function startPruning(
  db: Database,
  clock: Clock,
  logger: Logger,
  { everyMs = PRUNE_INTERVAL_MS, eventRetentionDays = DEFAULT_EVENT_RETENTION_DAYS } = {},
): PruningSchedule {
  const pass = async () => {
    try {
      const result = await pruneOnce(db, clock.now(), eventRetentionDays);
      if (result) logger.info('pruned', { ...result });
    } catch (err) {
      const { error, code } = errorFields(err);
      logger.warn('pruning failed', { error, code });
    }
  };
  return startPeriodicPass(pass, everyMs);
}
