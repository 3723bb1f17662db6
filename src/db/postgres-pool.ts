// PostgreSQL through node-postgres: the pool the service queries, and the probe that says whether the
// database answers.
//
// node-postgres, not postgres.js: both send unnamed statements only (no named prepared statement: a
// transaction-mode pooler such as PgBouncer, RDS Proxy or Supavisor hands each transaction any server
// connection, where a statement named on another one is missing or is a different statement, and
// writes answered 200 never reached the table). node-postgres sends an unnamed statement's Parse, Bind,
// Describe and Execute together: one round trip. postgres.js first asks the server for the parameter
// types and only then binds and executes: two round trips for every statement with a parameter.
import { randomBytes } from 'node:crypto';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { watchAvailability, type AvailabilityOptions } from './availability.js';
import type { Database, DatabaseHandle } from './database.js';
import { describeDatabaseUrl, hostUrl, parseDatabaseUrl } from './database-url.js';
import * as schema from './schema.js';
import { namedStatement } from './named-statement.js';
import { traceQueries, type StatementTracer } from './statement-tracing.js';
import { nodePostgresTextTimestamps } from './text-timestamps.js';
import { findWritableHost, type WritableHostOptions } from './writable-host.js';

export const POOL_MAX = 10;

/** The pool's connections by state, as the server sees them (its own application name). */
const POOL_CONNECTIONS = namedStatement<{ application_name: string }>(
  `select coalesce(state, 'unknown') as state, count(*)::int as count from pg_stat_activity where application_name = :application_name group by 1`,
);

/**
 * Limits the server enforces on every session, sent as startup parameters: a statement (or a lock
 * wait) running past 5 s is cancelled (57014, answered 503), and a transaction left open by a client
 * that went away is ended instead of holding its row locks.
 */
export const sessionLimits = { statement_timeout: 5000, idle_in_transaction_session_timeout: 10_000 };
/** A connection (TCP, TLS, authentication) not ready in this long fails: a stalled server is not waited for. */
const CONNECT_TIMEOUT_MS = 2000;
/** A probe's round trip; longer means the database is stalled or gone. */
const PROBE_TIMEOUT_MS = 750;
/** At close, connections still lent to a request are waited for this long at most. */
const CLOSE_GRACE_MS = 5000;

/**
 * PgBouncer refuses startup parameters it does not know (`unsupported startup parameter: statement_timeout`).
 * With several hosts the refusal is the cause of "no host accepts writes" (writable-host.ts): the chain is read.
 */
const isUnsupportedStartupParameter = (error: unknown): boolean => {
  const e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  if (e?.code === '08P01' && /unsupported startup parameter/i.test(String(e?.message))) return true;
  return e?.cause !== undefined && e.cause !== error && isUnsupportedStartupParameter(e.cause);
};

/**
 * `sslmode` in DATABASE_URL means what it means to libpq, psql and postgres.js: `require` encrypts
 * without verifying the server's certificate, `verify-full` verifies it. node-postgres otherwise reads
 * `require` (and `prefer`, `verify-ca`) as `verify-full`, which a managed database with a private CA fails.
 * (Kept for one host; database-url.ts's hostUrl does this for each host of a list.)
 */
export function withLibpqSslModes(url: string): string {
  // `no-verify` (node-postgres's own: encrypt, do not verify) and the modes both agree on are left as they are.
  if (!/[?&]sslmode=(prefer|require|verify-ca)(&|$)/.test(url) || /[?&]uselibpqcompat=/.test(url)) return url;
  return `${url}&uselibpqcompat=true`;
}

/**
 * A connection that gives up connecting after CONNECT_TIMEOUT_MS, with the error a driver timeout
 * gives (`CONNECT_TIMEOUT`: the database cannot be reached) instead of node-postgres's bare
 * `timeout expired`. Set on the pool, node-postgres would also fail a query that waits that long for
 * a free connection (a busy pool, not a database away), so the limit is each connection's own.
 */
export class TimedConnection extends pg.Client {
  /** WritableHost's generation when this connection was made: an older one belongs to a host that was lost. */
  generation = 0;
  /** Set when no host accepts writes: connecting fails at once instead of trying a host known to refuse. */
  refusal: Error | undefined;

  constructor(config?: pg.ClientConfig) {
    super({ ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  }

  override connect(): Promise<pg.Client>;
  override connect(callback: (err: Error) => void): void;
  override connect(callback?: (err: Error) => void): Promise<pg.Client> | undefined {
    const refusal = this.refusal;
    if (refusal) {
      if (!callback) return Promise.reject(refusal);
      process.nextTick(() => callback(refusal));
      return;
    }
    const tagged = (err: Error | undefined) =>
      err?.message === 'timeout expired'
        ? Object.assign(new Error('database connection timed out', { cause: err }), { code: 'CONNECT_TIMEOUT' })
        : err;
    if (callback) {
      super.connect((err: Error) => callback(tagged(err) as Error));
      return;
    }
    return super.connect().catch((err: Error) => {
      throw tagged(err);
    });
  }
}

/**
 * The pool, with a connection lent out (drizzle's transactions take one with `connect()`) kept safe:
 * - a lent connection the server closes emits 'error', which pg-pool does not listen to while it is
 *   lent: unheard, it would end the process. It is handed back to the pool instead, which drops it;
 * - drizzle sends `begin` before its own try/finally: a `begin` that fails with the connection would
 *   never hand it back, and ten of those would empty the pool for good. Handing it back on its
 *   'error' covers that too, and a second hand-back (drizzle's own, later) does nothing.
 */
export class ServicePool extends pg.Pool {
  /** The generation of the host in use (writable-host.ts): connections of an older one are dropped. */
  generation: () => number = () => 0;

  private stale(client: pg.PoolClient): boolean {
    return (client as unknown as TimedConnection).generation !== this.generation();
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(
    callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): void;
  override connect(
    callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): Promise<pg.PoolClient> | undefined {
    // pool.query() takes its connection this way and listens for its errors itself.
    if (callback) {
      super.connect(callback);
      return;
    }
    return super.connect().then((client): pg.PoolClient | Promise<pg.PoolClient> => {
      // An idle connection to a host that was lost is dropped, and another one is taken (made on the new host).
      if (this.stale(client)) {
        client.release(true);
        return this.connect();
      }
      const release = client.release.bind(client);
      let released = false;
      const releaseOnce = (err?: Error | boolean) => {
        if (released) return;
        released = true;
        client.removeListener('error', releaseOnce);
        release(err ?? (this.stale(client) ? true : undefined));
      };
      client.on('error', releaseOnce);
      client.release = releaseOnce;
      return client;
    });
  }

  /**
   * pg-pool's own query() drops the connection after any error, even one the server answered on a
   * connection that stays usable: a constraint, or a full rate-limit bucket refusing the request. A flood
   * of refused requests would then open a connection each (TCP, TLS, authentication). Here an ERROR the
   * server answered (a statement timeout too) hands the connection back for the next request; anything
   * else (the connection lost, a FATAL after which the server closes it) drops it as before. Calls with a
   * callback go to pg-pool as they are.
   */
  override query<Row extends pg.QueryResultRow = pg.QueryResultRow>(...args: unknown[]): Promise<pg.QueryResult<Row>> {
    type Query = (...a: unknown[]) => Promise<pg.QueryResult<Row>>;
    if (args.some((arg) => typeof arg === 'function')) return (super.query as Query)(...args);
    return this.connect().then(async (client) => {
      try {
        const result = await (client.query as Query)(...args);
        client.release();
        return result;
      } catch (error) {
        const answered = error instanceof pg.DatabaseError && error.severity === 'ERROR';
        client.release(answered ? undefined : (error as Error));
        throw error;
      }
    });
  }
}

export interface PostgresOptions {
  watch: AvailabilityOptions;
  traceStatement?: StatementTracer | undefined;
  /** Told when the host that accepts writes changes (several hosts in DATABASE_URL). */
  onPrimaryChange?: WritableHostOptions['onPrimaryChange'];
}

export async function openPostgres(url: string, options: PostgresOptions): Promise<DatabaseHandle> {
  const { watch, traceStatement } = options;
  const parsed = parseDatabaseUrl(url);
  // The pool's state is read from PostgreSQL, for the connections of this instance's own application_name.
  const applicationName = `slowdns-${randomBytes(6).toString('hex')}`;
  // Read at each connect: the limits are dropped here behind a pooler that refuses them (below).
  const connection: pg.ClientConfig = { application_name: applicationName, ...sessionLimits };
  const writable = findWritableHost(parsed, {
    open: (hostUrl) => new TimedConnection({ ...connection, connectionString: hostUrl }),
    timeoutMs: PROBE_TIMEOUT_MS,
    onPrimaryChange: options.onPrimaryChange,
  });
  const noWritableHost = () =>
    Object.assign(new Error(`no host of ${describeDatabaseUrl(parsed)} accepts writes`), { code: '25006' });
  // Each connection of the pool is made on the host that accepts writes now, and remembers which generation that was.
  class HostConnection extends TimedConnection {
    constructor(config?: pg.ClientConfig) {
      const target = writable.url;
      super({ ...config, ...connection, connectionString: target ?? hostUrl(parsed, parsed.hosts[0]!) });
      this.generation = writable.generation;
      if (!target) this.refusal = noWritableHost();
    }
  }
  const pool = new ServicePool({
    types: nodePostgresTextTimestamps,
    Client: HostConnection,
    max: POOL_MAX,
    idleTimeoutMillis: 60_000,
  });
  pool.generation = () => writable.generation;
  // An idle connection the server closes is an 'error' event of the pool, which unheard would end the
  // process. pg-pool drops the connection; the next query that fails marks the database away.
  pool.on('error', () => {});
  // While tracing is on, each of the pool's connections runs its statements (BEGIN and COMMIT too) in spans.
  if (traceStatement) pool.on('connect', (client) => traceQueries(client, traceStatement));
  const db = drizzle({ client: pool, schema }) as unknown as Database;
  const poolStats = async () => {
    const { rows } = await pool.query<{ state: string; count: number }>(
      POOL_CONNECTIONS.text,
      POOL_CONNECTIONS.values({ application_name: applicationName }),
    );
    return { max: POOL_MAX, connections: Object.fromEntries(rows.map((r) => [r.state, r.count])) };
  };

  // Probes use a connection of their own (writable-host.ts): a pool busy with long work still lets a probe
  // through, so "slow" is never mistaken for "gone"; and a probe asks whether the host accepts writes, not
  // only whether it answers (a standby, or a promoted node pg_auto_failover keeps read-only, does not).
  const ping = async (): Promise<void> => {
    try {
      await writable.ping();
    } catch (error) {
      // Behind a pooler that refuses them the limits cannot be sent: the pooler's own query_timeout applies.
      // Connections read `connection` as they are made, so the next ones go without them.
      if (isUnsupportedStartupParameter(error) && 'statement_timeout' in connection) {
        for (const name of Object.keys(sessionLimits)) delete (connection as Record<string, unknown>)[name];
        return ping();
      }
      throw error;
    }
  };
  const availability = watchAvailability(ping, watch);
  // A first probe before any query: behind a pooler that refuses the session limits, they are dropped
  // before the pool opens its first connection; with several hosts, the writable one is found. A database
  // that is down now is probed until it is back.
  await availability.check();

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      availability.close();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([pool.end(), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
      clearTimeout(timer);
      await writable.close();
    })());
  return { db, kind: 'postgres', poolStats, availability, close };
}
