// DATABASE_READ_URL (DESIGN §21): a second pool, on a streaming replica, for the operators' reads. A probe
// every second finds the host to read from (one host, or the first standby of a list under
// `prefer-standby`/`standby`, the first that answers under `any`) and how far its replay lags behind the
// primary; reads go to it only while it answers and lags at most DATABASE_READ_MAX_LAG_SECONDS
// (read-routing.ts chooses, per read).
import { randomBytes } from 'node:crypto';
import { drizzle } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import type { Database } from './database.js';
import { describeDatabaseUrl, hostUrl, parseDatabaseUrl } from './database-url.js';
import { POOL_MAX, ServicePool, sessionLimits, TimedConnection } from './postgres-pool.js';
import * as schema from './schema.js';
import { traceQueries, type StatementTracer } from './statement-tracing.js';
import { nodePostgresTextTimestamps } from './text-timestamps.js';

/**
 * Whether the host is a standby, and how many seconds of the primary's commits it has received but not
 * replayed yet: 0 when replay has caught up with what it received (an idle primary sends nothing, and is
 * not lag), else the time since the last commit it replayed; null when it cannot tell (behind, and nothing
 * replayed since it started). A host that is not in recovery is the primary itself: no lag.
 */
const REPLICA_SQL = `select pg_is_in_recovery() as standby,
  case when not pg_is_in_recovery() then 0
       when pg_last_wal_receive_lsn() is null or pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() then 0
       else extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp())
  end::float8 as lag`;

/** A host's probe: connect and answer within this, or it counts as unreachable. */
const PROBE_TIMEOUT_MS = 750;

export interface ReadReplica {
  db: Database;
  /** Reads may go to it: a host answered the last probe, lagging at most the limit. */
  readonly usable: boolean;
  /** The host in use's replay lag at the last probe, in seconds; undefined while no host answers. */
  readonly lagSeconds: number | undefined;
  /** A read failed on it as if it were unreachable: unused until a probe (started now) finds it again. */
  reportFailure(): void;
  close(): Promise<void>;
}

export interface ReadReplicaOptions {
  maxLagSeconds: number;
  /** How often it is probed (1 s by default). */
  probeEveryMs?: number | undefined;
  /** Told once when reads leave the replica (and why), once when they return. */
  onChange?: ((usable: boolean, reason: string) => void) | undefined;
  traceStatement?: StatementTracer | undefined;
}

interface Reading {
  index: number;
  standby: boolean;
  lag: number | null;
}

export async function openReadReplica(url: string, options: ReadReplicaOptions): Promise<ReadReplica> {
  const parsed = parseDatabaseUrl(url, { for: 'reads' });
  const applicationName = `slowdns-read-${randomBytes(6).toString('hex')}`;
  const connection: pg.ClientConfig = { application_name: applicationName, ...sessionLimits };
  const urlOf = (index: number) => hostUrl(parsed, parsed.hosts[index]!);

  let current: number | undefined;
  let lag: number | undefined;
  /** Undefined until the first probe, so that its outcome is said too. */
  let usable: boolean | undefined;
  let generation = 0;
  let closed = false;

  class ReplicaConnection extends TimedConnection {
    constructor(config?: pg.ClientConfig) {
      const index = current;
      super({ ...config, ...connection, connectionString: urlOf(index ?? 0) });
      this.generation = generation;
      if (index === undefined)
        this.refusal = Object.assign(new Error(`no host of ${describeDatabaseUrl(parsed)} answers reads`), {
          code: '08006',
        });
    }
  }
  const pool = new ServicePool({
    types: nodePostgresTextTimestamps,
    Client: ReplicaConnection,
    max: POOL_MAX,
    idleTimeoutMillis: 60_000,
  });
  pool.generation = () => generation;
  pool.on('error', () => {});
  if (options.traceStatement) {
    const trace = options.traceStatement;
    pool.on('connect', (client) => traceQueries(client, trace));
  }
  const db = drizzle({ client: pool, schema }) as unknown as Database;

  /** One host's answer, on a connection of its own (never the pool's: a busy pool does not look like a lost host). */
  const readHost = async (index: number): Promise<Reading> => {
    const client = new TimedConnection({ ...connection, connectionString: urlOf(index) });
    client.on('error', () => {});
    let timer: NodeJS.Timeout | undefined;
    try {
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('replica probe timed out')), PROBE_TIMEOUT_MS);
      });
      const answer = (async () => {
        await client.connect();
        return (await client.query<{ standby: boolean; lag: number | null }>(REPLICA_SQL)).rows[0]!;
      })();
      answer.catch(() => {});
      const row = await Promise.race([answer, expired]);
      return { index, standby: row.standby, lag: row.lag };
    } finally {
      clearTimeout(timer);
      void client.end().catch(() => {});
    }
  };

  const choose = (readings: Reading[]): Reading | undefined => {
    const standby = readings.find((r) => r.standby);
    if (parsed.targetSessionAttrs === 'standby') return standby;
    if (parsed.targetSessionAttrs === 'prefer-standby') return standby ?? readings[0];
    return readings[0];
  };

  const set = (next: boolean, reason: string) => {
    if (next === usable) return;
    usable = next;
    options.onChange?.(next, reason);
  };

  const probe = async () => {
    const answers = await Promise.allSettled(parsed.hosts.map((_, index) => readHost(index)));
    if (closed) return;
    const readings = answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
    const chosen = choose(readings);
    if (chosen?.index !== current) generation++;
    current = chosen?.index;
    lag = chosen ? (chosen.lag ?? undefined) : undefined;
    if (!chosen) return set(false, readings.length ? 'no host is a standby' : 'unreachable');
    if (chosen.lag === null) return set(false, 'replay lag unknown');
    if (chosen.lag > options.maxLagSeconds)
      return set(false, `lagging ${chosen.lag.toFixed(1)} s, more than ${options.maxLagSeconds} s`);
    set(true, 'answering');
  };

  let running: Promise<void> | undefined;
  const probeNow = () => (running ??= probe().finally(() => (running = undefined)));
  // The first probe before any read: a replica that is down at start is said once, and read around.
  await probeNow();
  const timer = setInterval(() => void probeNow(), options.probeEveryMs ?? 1000).unref();

  return {
    db,
    get usable() {
      return usable === true;
    },
    get lagSeconds() {
      return lag;
    },
    reportFailure() {
      set(false, 'a read failed');
      void probeNow();
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
      await pool.end();
    },
  };
}
