// BENCH_ONLY=checkins: DESIGN §21's check-ins (~3,300 a second at a million servers) through the service as
// operators run it. A fresh PostgreSQL database filled with SQL (BENCH_ROWS servers, a million by default,
// with their activations and codes; a sixteenth revoked), then, for each count of BENCH_INSTANCES (default
// 1; `1,2` measures one, then two, side by side in one run), that many compiled servers (`npm start`'s, each
// its own process, as behind a load balancer) driven over HTTP by checkin-load.ts (its own process, plain
// sockets, BENCH_CONCURRENCY keep-alive connections, default 64) for BENCH_SECONDS (default 15), while this
// process runs install steps one after another on the first instance. It prints check-ins per second, the
// CPU per check-in of the service, of the database's backends (PostgreSQL's share), and of the load
// generator, how busy the machine was, the load average, the install steps' latency alone and during the
// check-ins, and the plan of the check-in statement on the filled database. Nothing is asserted.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { CHECKIN_STATEMENT } from '../../src/domain/servers/checkins.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { benchAgentToken, fillFleet } from '../support/fleet-rows.js';
import { createScratchDatabase } from '../support/scratch-database.js';
import { spawnService, TEST_KEK, type SpawnedService } from '../support/spawn-service.js';
import { openExplainingPostgres } from './admin-search.js';
import { printProfile } from './cpu-profile.js';
import { httpClient, serverCpuMs, waitReady } from './http-server.js';
import { createInstalls, LIFECYCLE, runStep, type Step } from './lifecycle-steps.js';

/** Linux's /proc CPU ticks (USER_HZ). */
const TICK_MS = 10;
/** Installs made so far by this bench (each from its own address). */
let installsMade = 0;
/** Installs timed alone before each run, and the warm-up's seconds of check-ins. */
const ALONE_INSTALLS = 20;
const WARM_UP_SECONDS = 3;

interface Options {
  rows: number;
  seconds: number;
  connections: number;
  instances: number[];
  /** A built checkout of another version (BENCH_COMPARE_WITH): each run is made with its server first, then with this one's. */
  compareWith?: string | undefined;
}

const uptime = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

export async function benchCheckins(adminUrl: string, options: Options): Promise<void> {
  console.log(`load average before: ${uptime()}`);
  const scratch = await createScratchDatabase(adminUrl, 'slowdns_bench_checkins');
  const pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
  try {
    const migrating = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
    await migrateDatabase(migrating.db);
    await migrating.close();
    // Filled on connections of the bench's own, without the service's 5 s statement timeout.
    const filling = await openExplainingPostgres(scratch.url);
    const started = performance.now();
    try {
      await fillFleet(filling.db, options.rows, new Date());
    } finally {
      await filling.pool.end();
    }
    await pool.query(`update servers set status = 'revoked', revoked_at = last_seen_at where right(id, 1) = '7'`);
    await pool.query('vacuum analyze servers');
    const statuses = (await pool.query(`select status, count(*)::int as n from servers group by 1 order by 1`)).rows;
    console.log(
      `filled ${options.rows} servers with their activations and codes in ${((performance.now() - started) / 1000).toFixed(0)} s: ${statuses.map((r) => `${r.n} ${r.status}`).join(', ')}`,
    );
    let offset = 0;
    const versions = [
      ...(options.compareWith
        ? [{ name: options.compareWith, start: `${options.compareWith}/scripts/start.mjs` }]
        : []),
      { name: 'this checkout', start: 'scripts/start.mjs' },
    ];
    for (const instances of options.instances)
      for (const version of versions) {
        console.log(`\n== ${version.name}`);
        offset = await runWith(scratch.url, pool, options, instances, offset, version.start);
      }
    await explainCheckins(pool, options.rows);
  } finally {
    pool.on('error', () => {});
    await pool.end();
    await scratch.drop();
  }
  console.log(`load average after: ${uptime()}`);
}

/** One run: `instances` servers, the load, the install steps meanwhile. Answers where the next run starts in the stride. */
async function runWith(url: string, pool: pg.Pool, options: Options, instances: number, offset: number, start: string) {
  const services: SpawnedService[] = [];
  const ports: number[] = [];
  // BENCH_CPU_PROF=<dir>: the first instance runs under node --cpu-prof; its profile of the measured window is summarised.
  const profileDir = process.env.BENCH_CPU_PROF && `${process.env.BENCH_CPU_PROF}/${instances}-${Date.now()}`;
  const spawnedAt = performance.now();
  let window: { fromMs: number; toMs: number; cpuUs: number; requests: number } | undefined;
  try {
    for (let i = 0; i < instances; i++) {
      const port = 20_000 + Math.floor(Math.random() * 20_000);
      const env = {
        DATABASE_URL: url,
        KEY_ENCRYPTION_KEY: TEST_KEK,
        PORT: String(port),
        TRUST_PROXY: '1',
        LOG_LEVEL: 'warn',
      };
      const service = spawnService(
        env,
        profileDir && i === 0
          ? ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${profileDir}`, start]
          : [start],
      );
      services.push(service);
      await waitReady(service, port);
      ports.push(port);
    }
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const client = httpClient(ports[0]!, agent);
    const install = async (latencies: Map<Step, number[]>) => {
      const n = installsMade++;
      const [one] = createInstalls(1, 100 + (n % 100));
      // Each install from an address of its own, across every run of the bench: no install limit is reached.
      one!.address = `10.${200 + ((n >> 16) & 31)}.${(n >> 8) & 255}.${n & 255}`;
      for (const step of LIFECYCLE) {
        const at = performance.now();
        await runStep(client, step, one!);
        latencies.get(step)!.push(performance.now() - at);
      }
    };
    const fresh = () => new Map<Step, number[]>(LIFECYCLE.map((s) => [s, []]));

    // Warm-up: connections opened, code compiled, on both paths.
    await generate(ports, options, WARM_UP_SECONDS, offset);
    offset += 20_000;
    for (let i = 0; i < 5; i++) await install(fresh());

    const alone = fresh();
    for (let i = 0; i < ALONE_INSTALLS; i++) await install(alone);

    const pids = services.map((s) => s.process.pid!);
    const serviceBefore = await Promise.all(pids.map(serverCpuMs));
    const database = await databaseCpu(pool);
    const machineBefore = await machineTicks();
    const hotBefore = await serverUpdates(pool);
    const commitsBefore = await commits(pool);
    const walBefore = await walStats(pool);
    const loadBefore = uptime();
    const loadStarted = performance.now();
    const during = fresh();
    let loading = true;
    const generated = generate(ports, options, options.seconds, offset).finally(() => {
      loading = false;
    });
    let installs = 0;
    while (loading) {
      await install(during);
      installs += 1;
    }
    const load = await generated;
    const loadEnded = performance.now();
    const firstMs = (await serverCpuMs(pids[0]!)) - serviceBefore[0]!;
    const databaseMs = await database.stop();
    const machine = await machineTicks();
    const serviceMs = (await Promise.all(pids.map(serverCpuMs))).reduce((a, b, i) => a + b - serviceBefore[i]!, 0);
    await new Promise((r) => setTimeout(r, 1500)); // each backend reports its counts within a second of going idle
    const hot = await serverUpdates(pool);
    const statements = (await commits(pool)) - commitsBefore;
    const wal = await walStats(pool);
    agent.destroy();

    const ok = load.byStatus['200'] ?? 0;
    const perCheckin = (ms: number) => `${Math.round((ms * 1000) / load.answered)}`;
    const busy = 1 - (machine.idle - machineBefore.idle) / (machine.total - machineBefore.total);
    console.log(
      `\n${instances} instance${instances > 1 ? 's' : ''}, ${options.connections} connections, ${options.seconds} s, ${installs} installs meanwhile (load average ${loadBefore} → ${uptime()})`,
    );
    console.log(
      '| check-ins/s (200) | answers | CPU µs per check-in: service · PostgreSQL backends · load generator | machine busy | check-in p50 / p99 ms |',
    );
    console.log('|---|---|---|---|---|');
    console.log(
      `| ${Math.round(ok / (load.wallMs / 1000))} | ${JSON.stringify(load.byStatus)} | ${perCheckin(serviceMs)} · ${perCheckin(databaseMs)} · ${perCheckin(load.cpuMs)} | ${(busy * 100).toFixed(0)} % of ${os.cpus().length} cores | ${load.p50Ms.toFixed(1)} / ${load.p99Ms.toFixed(1)} |`,
    );
    window = {
      fromMs: loadStarted - spawnedAt,
      toMs: loadEnded - spawnedAt,
      cpuUs: firstMs * 1000,
      requests: load.answered / instances,
    };
    console.log(
      `transactions committed in the database meanwhile: ${statements} (${(load.answered / statements).toFixed(1)} check-ins per transaction, the install steps' included)`,
    );
    console.log(
      `WAL per check-in (the whole PostgreSQL's, other databases' included): ${((wal.records - walBefore.records) / load.answered).toFixed(1)} records, ${((wal.fpi - walBefore.fpi) / load.answered).toFixed(2)} full-page images, ${Math.round((wal.bytes - walBefore.bytes) / load.answered)} bytes`,
    );
    console.log(
      `servers updated: ${hot.all - hotBefore.all}, of them HOT: ${hot.hot - hotBefore.hot}; the install steps (ms, p50 / p90 / max) alone (${ALONE_INSTALLS}) and during the check-ins (${installs}):`,
    );
    console.log('| step | alone | during check-ins |\n|---|---|---|');
    for (const step of LIFECYCLE)
      console.log(`| ${step} | ${spread(alone.get(step)!)} | ${spread(during.get(step)!)} |`);
    return load.next + 20_000;
  } finally {
    for (const service of services) await service.stop();
    if (profileDir && window) await printProfile(profileDir, [{ step: 'check-ins', ...window }], 'check-in');
  }
}

/** Every write of the PostgreSQL (pg_stat_wal, 14 and later): the first change of a page after a checkpoint writes the whole page. */
async function walStats(pool: pg.Pool): Promise<{ records: number; fpi: number; bytes: number }> {
  const { rows } = await pool.query(
    `select wal_records::float8 as records, wal_fpi::float8 as fpi, wal_bytes::float8 as bytes from pg_stat_wal`,
  );
  return rows[0];
}

async function commits(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query(
    `select xact_commit::int as n from pg_stat_database where datname = current_database()`,
  );
  return rows[0].n;
}

interface LoadResult {
  answered: number;
  byStatus: Record<string, number>;
  wallMs: number;
  cpuMs: number;
  p50Ms: number;
  p99Ms: number;
  next: number;
}

/** checkin-load.ts in its own process for `seconds`. */
function generate(ports: number[], options: Options, seconds: number, offset: number): Promise<LoadResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/bench/checkin-load.ts'], {
    env: {
      PATH: process.env.PATH ?? '',
      CHECKIN_LOAD_PORTS: ports.join(','),
      CHECKIN_LOAD_CONNECTIONS: String(options.connections),
      CHECKIN_LOAD_SECONDS: String(seconds),
      CHECKIN_LOAD_SERVERS: String(options.rows),
      CHECKIN_LOAD_OFFSET: String(offset),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`load exited ${code}`)),
    ),
  );
}

function spread(samples: number[]): string {
  if (samples.length === 0) return '–';
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!.toFixed(1);
  return `${at(0.5)} / ${at(0.9)} / ${sorted.at(-1)!.toFixed(1)}`;
}

async function processCpuMs(pid: number): Promise<number | undefined> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined; // gone, or not ours to read
  }
}

/**
 * The CPU of this database's backends from now until `stop` (PostgreSQL runs on this machine): sampled
 * every 500 ms, so backends that the services' pools open meanwhile are counted from their start. The
 * shared processes (WAL writer, checkpointer, autovacuum) are left out: other databases use them too.
 */
async function databaseCpu(pool: pg.Pool) {
  const backends = async () =>
    (
      await pool.query<{ pid: number }>(
        `select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`,
      )
    ).rows.map((r) => r.pid);
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  for (const pid of await backends()) {
    const cpu = await processCpuMs(pid);
    if (cpu !== undefined) first.set(pid, cpu);
  }
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      for (const pid of await backends()) {
        const cpu = await processCpuMs(pid);
        if (cpu !== undefined) last.set(pid, cpu);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  return {
    stop: async () => {
      sampling = false;
      await sampler;
      for (const pid of last.keys()) {
        const cpu = await processCpuMs(pid);
        if (cpu !== undefined) last.set(pid, cpu);
      }
      let sum = 0;
      for (const [pid, cpu] of last) sum += cpu - (first.get(pid) ?? 0);
      return sum;
    },
  };
}

/** The machine's CPU ticks since boot, all and idle (/proc/stat). */
async function machineTicks(): Promise<{ total: number; idle: number }> {
  const cpu = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  return { total: cpu.slice(0, 8).reduce((a, b) => a + b, 0), idle: cpu[3]! + cpu[4]! };
}

async function serverUpdates(pool: pg.Pool): Promise<{ all: number; hot: number }> {
  const { rows } = await pool.query(
    `select n_tup_upd::int as "all", n_tup_hot_upd::int as hot from pg_stat_user_tables where relname = 'servers'`,
  );
  return rows[0];
}

/** The check-in statement's plan on the filled database, for a batch of 32 (rolled back). */
async function explainCheckins(pool: pg.Pool, rows: number): Promise<void> {
  const now = new Date();
  const hour = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
  const batch = Array.from({ length: 32 }, (_, i) => {
    const token = benchAgentToken(((i * 104_729) % rows) + 1);
    return {
      i,
      token_hash: sha256Hex(token),
      seen_at: now.toISOString(),
      bucket_start: hour.toISOString(),
      quota: 120,
      report: { agent_version: '2026.11.20.1', uptime_seconds: 1, services: [] },
      address: `10.0.0.${i}`,
    };
  }).sort((a, b) => (a.token_hash < b.token_hash ? -1 : 1));
  const client = await pool.connect();
  try {
    await client.query('begin');
    const plan = await client.query(`explain (analyze, buffers) ${CHECKIN_STATEMENT.text}`, [JSON.stringify(batch)]);
    await client.query('rollback');
    console.log(
      `\n-- the check-in statement, a batch of 32 on the filled database\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`,
    );
  } finally {
    client.release();
  }
}
