import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { watchAvailability, type AvailabilityOptions, type DatabaseAvailability } from './availability.js';
import * as schema from './schema.js';

/** A drizzle database or transaction; queries take it as their first argument. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** How many connections the pool may open and has open, by state: read by the metrics at each scrape. */
  poolStats(): Promise<PoolStats>;
  /** Whether the database answers; probed on failures and while it is away. */
  availability: DatabaseAvailability;
  close(): Promise<void>;
}

export interface PoolStats {
  max: number;
  /** Open connections by PostgreSQL's state (`active`, `idle`, `idle in transaction`, ...). */
  connections: Record<string, number>;
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  /** Folder of the embedded database; `memory://` keeps it in memory. */
  dataDir: string;
  /** What a fresh embedded database starts from (pglite-seed.ts); by default the build's seed, when there is one. */
  pgliteSeed?: Blob | undefined;
  /** Told when the database goes away and when it is back (for one log line each). */
  onAvailabilityChange?: AvailabilityOptions['onChange'];
  /** How often the embedded database checkpoints (PGLITE_CHECKPOINT_INTERVAL_MS by default). */
  pgliteCheckpointIntervalMs?: number | undefined;
}

/** `DATABASE_URL` set → node-postgres on a real PostgreSQL; unset → embedded PGlite. Same schema, same SQL. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const watch = { onChange: options.onAvailabilityChange };
  return options.databaseUrl ? openPostgres(options.databaseUrl, watch) : openPglite(options.dataDir, options.pgliteSeed, watch, options.pgliteCheckpointIntervalMs);
}

/**
 * PostgreSQL's default shared_buffers is 128 MB, and PGlite touches all of it at start: with it the
 * process stands at 300–470 MB of RSS. 16 MB holds this service's tables many times over (a page not
 * in the buffers is a read from the data folder's files, in memory for `memory://`) and starts at about
 * half of that. Passed at each start, so it applies to existing folders too; PGlite's own start
 * parameters (single-user mode, no parallel workers) are kept.
 */
const pgliteSettings = ['-c', 'shared_buffers=16MB'];

/**
 * PGlite is PostgreSQL compiled to WebAssembly (9 MB). V8 compiles it with its baseline compiler,
 * Liftoff, then recompiles the functions that run hot with TurboFan on background threads. During a
 * start that recompiling left about 80 MB of freed compiler memory in those threads' malloc arenas,
 * never returned to the system (`/proc/PID/smaps` on Node 20: 87 MB of 64 MB-aligned arenas, 8 MB
 * with Liftoff only; on Node 24 the process peaked at 770 MB instead of 240 MB), and took about a
 * second of CPU on this 2-core machine. Liftoff's code costs some CPU per query instead (README,
 * "Quick start"). Two process-wide V8 flags, read when WebAssembly is compiled (nothing else in this
 * process compiles any): `--liftoff-only`, which Node 24 ignores when set at run time, and a
 * tiering budget too large to be spent, which all of Node 20, 22 and 24 honour.
 */
function compileWebAssemblyWithLiftoffOnly(): void {
  setFlagsFromString('--liftoff-only');
  setFlagsFromString(`--wasm-tiering-budget=${2 ** 31 - 1}`);
}

/**
 * PGlite runs PostgreSQL in single-user mode, where no checkpointer runs and max_wal_size asks for
 * no checkpoint: PostgreSQL checkpointed only when it stopped, so pg_wal kept every write since the
 * start (in memory for `memory://`: 240 MB of rows written left 142 MB in pg_wal, 25 MB with a
 * checkpoint every second). A checkpoint as often as PostgreSQL's checkpoint_timeout lets it remove
 * or recycle the WAL before it, and bounds what a restart after a crash replays. It waits for any
 * transaction in progress (PGlite serialises its queries), then writes the changed buffers (at most
 * shared_buffers, 16 MB). Single-user mode runs no autovacuum either, and every counted request updates
 * a rate-limit row: a plain VACUUM (no lock that stops reads or writes) before each checkpoint lets
 * later rows reuse the room of dead ones instead of growing the tables for ever.
 */
const PGLITE_CHECKPOINT_INTERVAL_MS = 5 * 60_000;

async function openPglite(dataDir: string, seed: Blob | undefined, watch: AvailabilityOptions, checkpointIntervalMs = PGLITE_CHECKPOINT_INTERVAL_MS): Promise<DatabaseHandle> {
  // Loaded here, not at the top: on PostgreSQL the server never loads PGlite (80 ms of CPU, 16 MB).
  const [{ PGlite }, { drizzle: drizzlePglite }, { readPgliteSeed }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('drizzle-orm/pglite'),
    import('./pglite-seed.js'),
  ]);
  compileWebAssemblyWithLiftoffOnly();
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) await mkdir(dataDir, { recursive: true });
  const fresh = inMemory || !existsSync(join(dataDir, 'PG_VERSION'));
  const loadDataDir = fresh ? (seed ?? (await readPgliteSeed())) : undefined;
  const startParams = [...PGlite.defaultStartParams, ...pgliteSettings];
  const client = await PGlite.create(dataDir, { startParams, ...(loadDataDir ? { loadDataDir } : {}) });
  const db = drizzlePglite({ client, schema }) as unknown as Database;
  // One connection, always open, in the process itself.
  const poolStats = async () => ({ max: 1, connections: { active: 1 } });
  // In-process: it cannot stall on a network, only be closed, and then a query fails at once.
  const availability = watchAvailability(async () => void (await client.query('select 1')), watch);
  // Vacuum first (single-user mode runs no autovacuum), then checkpoint. A failure is retried at the
  // next tick; a closed database stops the timer first.
  const maintain = async () => {
    await client.exec('vacuum');
    await client.exec('checkpoint');
  };
  const checkpoints = setInterval(() => void maintain().catch(() => {}), checkpointIntervalMs).unref();
  const close = async () => {
    clearInterval(checkpoints);
    availability.close();
    await client.close();
  };
  return { db, kind: 'pglite', poolStats, availability, close };
}

const POOL_MAX = 10;

/**
 * Limits the server enforces on every session, sent as startup parameters: a statement (or a lock
 * wait) running past 5 s is cancelled (57014, answered 503), and a transaction left open by a client
 * that went away is ended instead of holding its row locks.
 */
const sessionLimits = { statement_timeout: 5000, idle_in_transaction_session_timeout: 10_000 };
/** A connection (TCP, TLS, authentication) not ready in this long fails: a stalled server is not waited for. */
const CONNECT_TIMEOUT_MS = 2000;
/** A probe's round trip; longer means the database is stalled or gone. */
const PROBE_TIMEOUT_MS = 750;

/** PgBouncer refuses startup parameters it does not know (`unsupported startup parameter: statement_timeout`). */
const isUnsupportedStartupParameter = (error: unknown) =>
  (error as ErrorLike)?.code === '08P01' && /unsupported startup parameter/i.test(String((error as ErrorLike)?.message));

/**
 * A pool connection gives up connecting after CONNECT_TIMEOUT_MS. Set on the pool itself, node-postgres
 * would also fail a query that waits that long for a free connection (a busy pool, not a database
 * away), so the limit is given to each connection only.
 */
class TimedConnection extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super({ ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  }
}

/**
 * node-postgres, not postgres.js: both send unnamed statements only (no named prepared statement: a
 * transaction-mode pooler such as PgBouncer, RDS Proxy or Supavisor hands each transaction any server
 * connection, where a statement named on another one is missing or is a different statement, and writes
 * answered 200 never reached the table). node-postgres sends an unnamed statement's Parse, Bind,
 * Describe and Execute together: one round trip. postgres.js first asks the server for the parameter
 * types and only then binds and executes: two round trips for every statement with a parameter.
 */
async function openPostgres(url: string, watch: AvailabilityOptions): Promise<DatabaseHandle> {
  // The pool's state is read from PostgreSQL, for the connections of this instance's own application_name.
  const applicationName = `slowdns-${randomBytes(6).toString('hex')}`;
  const connection: pg.ClientConfig = { connectionString: url, application_name: applicationName, ...sessionLimits };
  const pool = new pg.Pool({ ...connection, Client: TimedConnection, max: POOL_MAX, idleTimeoutMillis: 60_000 });
  // A connection the server drops while idle is an 'error' event of the pool, which unheard would end the
  // process. Nothing to do: the next query that fails marks the database away, and the probe takes over.
  pool.on('error', () => {});
  const db = drizzleNodePostgres({ client: pool, schema }) as unknown as Database;
  const poolStats = async () => {
    const { rows } = await pool.query<{ state: string; count: number }>(
      `select coalesce(state, 'unknown') as state, count(*)::int as count from pg_stat_activity where application_name = $1 group by 1`,
      [applicationName],
    );
    return { max: POOL_MAX, connections: Object.fromEntries(rows.map((r) => [r.state, r.count])) };
  };
  // Probes use a connection of their own: a pool busy with long work still lets a probe through,
  // so "slow" is never mistaken for "gone". A probe that does not answer in time is destroyed.
  let probe: pg.Client | undefined;
  const ping = async (): Promise<void> => {
    let current = probe;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        (async () => {
          if (!current) {
            current = new pg.Client({ ...connection, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
            current.on('error', () => {});
            await current.connect();
          }
          await current.query('select 1');
        })(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(Object.assign(new Error('database probe timed out'), { code: 'CONNECT_TIMEOUT' })), PROBE_TIMEOUT_MS);
        }),
      ]);
      // Kept only once it answered in time: a connection the timeout gave up on is ended below.
      probe = current;
    } catch (error) {
      probe = undefined;
      void current?.end().catch(() => {});
      // Behind a pooler that refuses them the limits cannot be sent: the pooler's own query_timeout applies.
      // The pool reads its options at each connect, so its next connections go without them.
      if (isUnsupportedStartupParameter(error) && 'statement_timeout' in connection) {
        for (const options of [connection, pool.options] as Record<string, unknown>[]) {
          for (const name of Object.keys(sessionLimits)) delete options[name];
        }
        return ping();
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
  const availability = watchAvailability(ping, watch);
  // A first probe before any query: behind a pooler that refuses the session limits, they are dropped
  // before the pool opens its first connection. A database that is down now is probed until it is back.
  await availability.check();
  const close = async () => {
    availability.close();
    let timer: NodeJS.Timeout | undefined;
    // Connections still lent to a request are waited for, 5 s at most.
    await Promise.race([pool.end(), new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
    clearTimeout(timer);
    await probe?.end().catch(() => {});
  };
  return { db, kind: 'postgres', poolStats, availability, close };
}

/**
 * Codes that only a database driver gives: the server is down, restarting, full, too slow (57014, a
 * statement timeout), or not the one configured (3D000 no such database, 28000/28P01 login refused).
 * SQLSTATE classes 08 (connection exception), 53 (insufficient resources) and 57P (operator intervention) count whole.
 */
const databaseCodes = new Set(['CONNECT_TIMEOUT', '57014', '3D000', '28000', '28P01']);
const databaseCodeClasses = /^(08|53|57P)/;
/**
 * node-postgres says a connection was lost or could not be had in a message, with no code: the server
 * closed it or stopped answering (`Connection terminated unexpectedly`, `… due to connection timeout`),
 * it was closed by this process (`Connection terminated`, a pool ended at shutdown), or it broke before.
 */
const connectionLost = /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Cannot use a pool after calling end on the pool|timeout exceeded when trying to connect)/;
/**
 * Socket codes: the database's when they come from a socket call (`syscall`: the service opens no
 * other outbound sockets) or a query. A client hanging up gives ECONNRESET too, but as the request's
 * `aborted` error, without a syscall.
 */
const socketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

type ErrorLike = { code?: unknown; cause?: unknown; message?: unknown; address?: unknown; name?: unknown; query?: unknown; syscall?: unknown } | undefined;

/** True when the database driver raised the error (or its cause): a failed query, a broken constraint. */
export function isDatabaseError(error: unknown): boolean {
  for (let e = error as ErrorLike, depth = 0; e && depth < 5; e = e.cause as ErrorLike, depth++) {
    if (typeof e.query === 'string' || (e as unknown) instanceof pg.DatabaseError) return true;
  }
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
    if (typeof e.message === 'string' && (connectionLost.test(e.message) || /PGlite is closed/i.test(e.message))) return true;
  }
  return false;
}
