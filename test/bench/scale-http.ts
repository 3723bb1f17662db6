// `BENCH_ONLY=scale BENCH_SCALE_PART=http`: DESIGN §21's reads at the design scale over HTTP, as an operator's
// client meets them: the events list's first pages (p99 and median of BENCH_REQUESTS requests, one at a time) and
// the NDJSON export of every activation (rows/s, and the CPU a row of the server and of the database's backends, from
// /proc: which of the two sets the pace), by the compiled server, BENCH_RUNS rounds (default 3). With
// BENCH_BASELINE=<a built checkout> that checkout's server runs beside this one's on the same database, the two
// taking turns in each round (the first alternating), so before and after are measured in one run.
// The database: BENCH_SCALE_URL, one filled before (kept with BENCH_SCALE_KEEP=1, its URL printed), or a fresh one
// filled here as scale.ts fills it (BENCH_ROWS servers, activations and codes; BENCH_EVENTS events over 90 days).
import { join } from 'node:path';
import { openDatabase } from '../../src/db/client.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { fillFleet } from '../support/fleet-rows.js';
import { createScratchDatabase } from '../support/scratch-database.js';
import { spawnService, type SpawnedService, TEST_KEK } from '../support/spawn-service.js';
import { openExplainingPostgres } from './admin-search.js';
import { readExport } from './export-reader.js';
import { serverCpuMs } from './http-server.js';
import { fillEvents } from './scale.js';

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef0123456789';
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface Side {
  name: string;
  server: SpawnedService;
  base: string;
}

const percentile = (samples: number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))]!;
};

/** A fresh database filled to the design scale, its URL; dropped after unless BENCH_SCALE_KEEP is set. */
async function filledDatabase(adminUrl: string, rows: number, events: number) {
  const scratch = await createScratchDatabase(adminUrl, 'slowdns_bench');
  const migrating = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
  await migrateDatabase(migrating.db);
  await migrating.close();
  const { db, pool } = await openExplainingPostgres(scratch.url);
  const now = new Date();
  let started = performance.now();
  await fillFleet(db, rows, now);
  console.log(
    `filled ${rows} codes, activations and servers in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  started = performance.now();
  await fillEvents(pool, events, now);
  console.log(`filled ${events} events over 90 days in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  await pool.query(`update servers set status = 'revoked', revoked_at = last_seen_at where right(id, 1) = '7'`);
  // Nothing checks in here, so every active server goes stale and dead while the bench runs: each server's notice
  // pass (DESIGN §28) would write a million events meanwhile, and read them to deliver. Dead and told so, they stay quiet.
  await pool.query(
    `update servers set notified_health = 'dead', last_seen_at = least(last_seen_at, now() - interval '3 days') where status = 'active'`,
  );
  await pool.query('vacuum analyze');
  await pool.query('checkpoint');
  await pool.end();
  return scratch;
}

export async function benchScaleHttp(
  adminUrl: string,
  options: { rows: number; events: number; runs: number; requests: number },
): Promise<void> {
  const given = process.env.BENCH_SCALE_URL;
  const scratch = given ? undefined : await filledDatabase(adminUrl, options.rows, options.events);
  const url = given ?? scratch!.url;
  if (scratch && process.env.BENCH_SCALE_KEEP) console.log(`kept: BENCH_SCALE_URL=${url}`);
  const env = { DATABASE_URL: url, KEY_ENCRYPTION_KEY: TEST_KEK, ADMIN_TOKEN };
  const sides: Side[] = [];
  const start = async (name: string, command: string[]) => {
    const server = spawnService(env, command);
    const port = await server.port;
    await server.logged('ready', 120_000);
    sides.push({ name, server, base: `http://127.0.0.1:${port}` });
  };
  try {
    await start('this checkout', ['scripts/start.mjs']);
    const baseline = process.env.BENCH_BASELINE;
    if (baseline) await start(`baseline ${baseline}`, [join(baseline, 'scripts/start.mjs')]);
    for (const side of sides) await firstPages(side, 50); // warm: each compiled, its plans' catalogs read
    console.log(
      `\n| round | server | events first page p99 / median ms (${options.requests}) | one type p99 / median ms | a type none has (every window) p99 / median ms | NDJSON export of every activation rows/s | its CPU µs a row: server / PostgreSQL |`,
    );
    console.log('|---|---|---|---|---|---|---|');
    for (let round = 1; round <= options.runs; round++) {
      const order = round % 2 === 1 ? sides : [...sides].reverse();
      for (const side of order) {
        const all = await firstPages(side, options.requests);
        const typed = await firstPages(side, options.requests, '&type=server.revoked');
        const none = await firstPages(side, options.requests, '&type=webhook_endpoint.created');
        const exported = await exportWithCpu(side, url);
        const ms = (samples: number[]) =>
          `${percentile(samples, 0.99).toFixed(1)} / ${percentile(samples, 0.5).toFixed(1)}`;
        console.log(
          `| ${round} | ${side.name} | ${ms(all)} | ${ms(typed)} | ${ms(none)} | ${Math.round(exported.lines / exported.seconds)} | ${exported.serverUs} / ${exported.databaseUs} |`,
        );
      }
    }
  } finally {
    for (const side of sides) await side.server.stop();
    if (!process.env.BENCH_SCALE_KEEP) await scratch?.drop();
  }
}

/** `count` GETs of the events list's first page, one at a time over one keep-alive connection: ms each. */
async function firstPages(side: Side, count: number, filter = ''): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const at = performance.now();
    const answer = await fetch(`${side.base}/api/v2/admin/events?limit=50${filter}`, { headers: auth });
    const text = await answer.text();
    samples.push(performance.now() - at);
    if (answer.status !== 200) throw new Error(`the events list answered ${answer.status}: ${text}`);
  }
  return samples;
}

/** The database's backends (their pids) and each one's CPU ms so far, as /proc counts it. */
async function backendCpuMs(url: string): Promise<Map<number, number>> {
  const { pool } = await openExplainingPostgres(url);
  try {
    const { rows } = await pool.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    const cpu = new Map<number, number>();
    for (const { pid } of rows) cpu.set(pid, await serverCpuMs(pid).catch(() => 0));
    return cpu;
  } finally {
    await pool.end();
  }
}

/** The export of every activation, with the CPU a row the server and the database's backends spent on it. */
async function exportWithCpu(side: Side, url: string) {
  const pid = side.server.process.pid!;
  const [server, backends] = [await serverCpuMs(pid), await backendCpuMs(url)];
  const exported = await readExport(`${side.base}/api/v2/admin/activations`, {
    ...auth,
    accept: 'application/x-ndjson',
  });
  const serverMs = (await serverCpuMs(pid)) - server;
  let databaseMs = 0;
  for (const [backend, ms] of await backendCpuMs(url)) databaseMs += ms - (backends.get(backend) ?? 0);
  const perRow = (ms: number) => ((ms * 1000) / exported.lines).toFixed(1);
  return { ...exported, serverUs: perRow(serverMs), databaseUs: perRow(databaseMs) };
}
