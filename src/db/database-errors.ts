// Which errors are the database's, and which of those say it cannot be reached (answered 503
// service_unavailable, not 500), for node-postgres on PostgreSQL and for PGlite.
import pg from 'pg';

/**
 * Codes that only a database driver gives: the server is down, restarting, full, too slow (57014, a
 * statement timeout), or not the one configured (3D000 no such database, 28000/28P01 login refused), or
 * does not accept writes (25006: a standby, or a node pg_auto_failover keeps read-only while it promotes it;
 * the service never writes in a read-only transaction of its own, so this is never a bug's answer).
 * SQLSTATE classes 08 (connection exception), 53 (insufficient resources) and 57P (operator intervention) count whole.
 */
const databaseCodes = new Set(['CONNECT_TIMEOUT', '57014', '3D000', '28000', '28P01', '25006']);
const databaseCodeClasses = /^(08|53|57P)/;
/**
 * node-postgres says a connection was lost in a message, with no code: the server closed it
 * (`Connection terminated unexpectedly`), this process closed it (`Connection terminated`, a pool ended
 * at shutdown), or it broke before. A connection not made in time is CONNECT_TIMEOUT (postgres-pool.ts).
 */
const connectionLost =
  /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Cannot use a pool after calling end on the pool)/;
/**
 * Socket codes: the database's when they come from a socket call (`syscall`: the service opens no
 * other outbound sockets) or a query. A client hanging up gives ECONNRESET too, but as the request's
 * `aborted` error, without a syscall.
 */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

type ErrorLike = { code?: unknown; cause?: unknown; message?: unknown; query?: unknown; syscall?: unknown } | undefined;

/** True when the database driver raised the error (or its cause): a failed query, a broken constraint. */
export function isDatabaseError(error: unknown): boolean {
  for (let e = error as ErrorLike, depth = 0; e && depth < 5; e = e.cause as ErrorLike, depth++) {
    if (typeof e.query === 'string' || (e as unknown) instanceof pg.DatabaseError) return true;
  }
  return false;
}

/** True when the error (or its cause) carries the SQLSTATE `state` (e.g. 40P01 deadlock, 40001 recovery conflict). */
export function hasSqlState(error: unknown, state: string): boolean {
  for (let e = error as ErrorLike, depth = 0; e && depth < 5; e = e.cause as ErrorLike, depth++)
    if (e.code === state) return true;
  return false;
}

/** True when an error (or its cause) says the database cannot be reached, as opposed to a bug or a client gone. */
export function isDatabaseUnavailable(error: unknown): boolean {
  let fromDatabase = false;
  for (let e = error as ErrorLike, depth = 0; e && depth < 5; e = e.cause as ErrorLike, depth++) {
    // Drizzle's query error carries the query's text; node-postgres's own errors are DatabaseErrors.
    if (typeof e.query === 'string' || (e as unknown) instanceof pg.DatabaseError) fromDatabase = true;
    if (typeof e.code === 'string') {
      if (databaseCodes.has(e.code) || databaseCodeClasses.test(e.code)) return true;
      if (socketCodes.has(e.code) && (fromDatabase || e.syscall !== undefined)) return true;
    }
    if (typeof e.message === 'string' && (connectionLost.test(e.message) || /PGlite is closed/i.test(e.message)))
      return true;
  }
  return false;
}
