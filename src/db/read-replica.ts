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
import { namedStatement } from './named-statement.js';
import { runStatement } from './statement.js';
import { nodePostgresTextTimestamps } from './text-timestamps.js';

/** Whether the host is a standby, and how far it has replayed the primary's WAL (bytes; null on the primary itself). */
const REPLICA_SQL = `select pg_is_in_recovery() as standby,
  case when pg_is_in_recovery() then (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::float8 end as replayed`;

/** How far the primary has written its WAL (bytes): what a standby that is not behind has replayed. */
const PRIMARY_POSITION = namedStatement<Record<string, never>>(
  `select (pg_current_wal_lsn() - '0/0'::pg_lsn)::float8 as position`,
);

/** The primary's WAL position now, read on the service's own pool (`database.db`). */
export async function primaryWalPosition(db: Database): Promise<number> {
  const [row] = await runStatement<{ position: number }>(db, PRIMARY_POSITION, {});
  return row!.position;
}

/** The primary's WAL position at a probe: a standby that has not replayed it misses what was written by then. */
interface Sample {
  at: number;
  position: number;
}

/** Samples kept at most (an hour at one probe a second), however far behind the standby is. */
const MAX_SAMPLES = 3600;

/**
 * How far behind the primary a standby that replayed up to `replayed` is, in seconds, from the primary's
 * positions sampled at earlier probes (oldest first): 0 when it has replayed the newest sample, else the
 * time since the first sample it misses (a lower bound: what it misses was written by then). The standby is
 * never compared with itself: one whose WAL receiver stopped has replayed all it received and sees no lag,
 * while the primary has moved on.
 */
function lagBehind(samples: readonly Sample[], replayed: number, now: number): number {
  const firstMissed = samples.findIndex((s) => s.position > replayed);
  return firstMissed < 0 ? 0 : Math.max(0, (now - samples[firstMissed]!.at) / 1000);
}

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
  /** The primary's WAL position (primaryWalPosition): a standby's lag is measured against it. */
  primaryPosition: () => Promise<number>;
  /** How often it is probed (1 s by default). */
  probeEveryMs?: number | undefined;
  /** Told once when reads leave the replica (and why), once when they return. */
  onChange?: ((usable: boolean, reason: string) => void) | undefined;
  traceStatement?: StatementTracer | undefined;
}

interface Reading {
  index: number;
  standby: boolean;
  /** Seconds behind the primary; 0 on the primary itself. */
  lag: number;
  /** How far it has replayed the primary's WAL (bytes); undefined on the primary itself. */
  replayed: number | undefined;
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
  const samples: Sample[] = [];

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
        return (await client.query<{ standby: boolean; replayed: number | null }>(REPLICA_SQL)).rows[0]!;
      })();
      answer.catch(() => {});
      const row = await Promise.race([answer, expired]);
      if (row.replayed === null) return { index, standby: row.standby, lag: 0, replayed: undefined };
      return { index, standby: row.standby, lag: lagBehind(samples, row.replayed, Date.now()), replayed: row.replayed };
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
    // The primary first: a standby keeping up has replayed at least this by the time it is asked. The primary
    // not answering adds no sample (the lag is then measured against the last one).
    const position = await options.primaryPosition().catch(() => undefined);
    if (position !== undefined) {
      samples.push({ at: Date.now(), position });
      if (samples.length > MAX_SAMPLES) samples.shift();
    }
    const answers = await Promise.allSettled(parsed.hosts.map((_, index) => readHost(index)));
    if (closed) return;
    const readings = answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
    const chosen = choose(readings);
    if (chosen?.index !== current) generation++;
    current = chosen?.index;
    lag = chosen?.lag;
    // Samples before the newest one the host read from has replayed tell nothing more about it.
    const replayed = chosen?.replayed;
    if (replayed !== undefined) {
      const newestHad = samples.findLastIndex((sample) => sample.position <= replayed);
      if (newestHad > 0) samples.splice(0, newestHad);
    }
    if (!chosen) return set(false, readings.length ? 'no host is a standby' : 'unreachable');
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
