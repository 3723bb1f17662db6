// `npm run bench`: benchmarks print numbers; nothing here is a test and nothing asserts a time.
// By default, each install step (page, issue, precheck, activate, confirm, release, healthz) through
// the service in this process, next to the same SQL replayed by a bare driver (PGlite called directly;
// on PostgreSQL both postgres.js and node-postgres, the service's driver), on embedded PGlite and on
// PostgreSQL (DATABASE_URL, or postgres://postgres@127.0.0.1:5432/postgres; scratch databases are
// created next to it and dropped). Each step runs in up to 8 slices of at least 200 requests, the service
// and the bare clients taking turns, so a machine whose speed drifts slows both sides alike:
//   BENCH_INSTALLS      installs per run (default 400; confirm and release take half each)
//   BENCH_CONCURRENCY   comma-separated (default 1,16)
//   BENCH_DATABASES     comma-separated: pglite, postgres (default both)
// BENCH_ONLY=proof: activate with no machine proof and with one of each key type, and the verification alone.
// BENCH_ONLY=limiter, lifecycle or overrides runs one of the older parts instead (BENCH_RUNS sets their
// N, 1000 by default): the rate limiter alone, µs and statements per step on a counting drizzle client,
// or what the rate-limit overrides cost (their read, and the quota lookup per request in memory).
// BENCH_ONLY=search fills BENCH_ROWS (default 1,000,000) install codes, activations and servers on PostgreSQL
// and prints the plan and time of each admin search filter (BENCH_PLANS=1: the whole plans).
// BENCH_ONLY=export: the compiled server exports BENCH_EXPORT_ROWS (default 1000000) activations as NDJSON
// over HTTP (BENCH_EXPORT_LISTS: activations, servers, install-codes): rows/s, CPU per row, its memory over idle.
// BENCH_ONLY=http runs the compiled server in its own process on PostgreSQL and drives it over HTTP
// (BENCH_INSTALLS installs, default 400, at the last of BENCH_CONCURRENCY, default 16): requests per
// second and the server's own CPU per request; the OTEL_* variables of the bench are the server's too
// (OTEL_EXPORTER_OTLP_ENDPOINT: measured with tracing on). BENCH_CPU_PROF=<dir> runs it under node --cpu-prof
// and prints the profile per step: µs of sampled self time per request by bucket (routing/adapter, zod,
// service, driver, node core+GC, other).
// BENCH_ONLY=floor: the compiled server next to the floor (floor-server.ts: bare node:http sending the
// service's own captured statements, signing one Ed25519 token per token step, answering JSON), each in its
// own process, over HTTP at the last of BENCH_CONCURRENCY (default 16), on BENCH_DATABASES (default
// postgres,pglite), BENCH_INSTALLS installs (default 2000): req/s and CPU per request of each, and their
// ratios with the slices' spread; BENCH_CPU_PROF=<dir>: both profiled, µs per request by bucket.
// BENCH_ONLY=framework: bare node:http, bare Hono on node-server and the service's `GET /api/v2/livez`, each in
// its own process, over HTTP at the last of BENCH_CONCURRENCY (default 16), BENCH_SLICES slices (default 6) of
// BENCH_REQUESTS requests (default 10000) taking turns: what the framework and the app-wide middleware cost a request.
// BENCH_WARM_UP: the installs each server of BENCH_ONLY=floor and http is warmed up with before it is
// measured, at the measured concurrency (default 1000).
// BENCH_ONLY=scale: DESIGN §21's design scale (test/bench/scale.ts): BENCH_ROWS servers, activations and codes
// (default 1,000,000) and BENCH_EVENTS events (default 10,000,000) filled with SQL; each figure with its plan.
// BENCH_SCALE_PART=drop-day or events: the events alone, then dropping the oldest day, or the events list's first pages;
// http (test/bench/scale-http.ts): the events list's first pages and the export over HTTP, BENCH_BASELINE beside;
// notices (test/bench/scale-notices.ts): every server going stale at once, the notice pass and the first minute of webhooks after it;
// steps: the whole fill, then only the install steps on it next to an empty database, in slices taking turns.
// BENCH_ONLY=checkins: check-ins sustained through the compiled server over HTTP on a filled database (test/bench/checkins.ts):
// BENCH_ROWS servers (default 1,000,000), BENCH_INSTANCES (default 1; `1,2` runs each), BENCH_CONCURRENCY connections
// (default 64), BENCH_SECONDS (default 15), install steps timed meanwhile; CPU per check-in of each process.
// BENCH_COMPARE_WITH=<a built checkout of another version>: each run with its server first, then with this one's.
// BENCH_ONLY=start: `npm start` to its first healthy answer on a fresh DATA_DIR and on a fresh PostgreSQL
// database, each next to a bare Hono start, BENCH_RUNS rounds (default 3): ms, × bare, MiB of the process tree.
import { benchAdminSearch } from './admin-search.js';
import { benchCheckins } from './checkins.js';
import { benchExportMemory } from './export-memory.js';
import { openCountingPglite, openCountingPostgres, type CountingDatabase } from './counting-database.js';
import { benchFloor } from './floor-comparison.js';
import { benchFramework } from './framework.js';
import { benchHttpServer } from './http-server.js';
import { benchLifecycle } from './lifecycle.js';
import type { Measurement } from './measure.js';
import { benchRateLimiter } from './rate-limiter.js';
import { benchRateLimitOverrides } from './rate-limit-overrides.js';
import { benchMachineProof } from './machine-proof.js';
import { benchScale } from './scale.js';
import { benchScaleHttp } from './scale-http.js';
import { benchScaleNotices } from './scale-notices.js';
import { benchStartToHealthy } from './start-to-healthy.js';
import { benchDatabase, pgliteTarget, postgresTarget, printReport } from './steps-bench.js';

const only = process.env.BENCH_ONLY;
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const parts: {
  name: string;
  title: string;
  run: (database: CountingDatabase, runs: number) => Promise<Measurement[]>;
}[] = [
  { name: 'limiter', title: 'rate limiter', run: benchRateLimiter },
  { name: 'lifecycle', title: 'install steps through the app', run: benchLifecycle },
  { name: 'overrides', title: 'rate-limit overrides', run: benchRateLimitOverrides },
  { name: 'proof', title: 'activate with and without a machine proof (DESIGN §24)', run: benchMachineProof },
];

async function benchPart(
  part: (typeof parts)[number],
  kind: string,
  open: () => Promise<CountingDatabase>,
  runs: number,
): Promise<void> {
  const database = await open();
  try {
    const rows = await part.run(database, runs);
    console.log(`\n${part.title} on ${kind} (N=${runs} per case, after a warm-up)`);
    console.log('| case | SQL statements / request | median µs | p95 µs | mean µs |');
    console.log('|---|---|---|---|---|');
    for (const r of rows)
      console.log(`| ${r.case} | ${r.statementsPerRun} | ${r.medianUs} | ${r.p95Us} | ${r.meanUs} |`);
  } finally {
    await database.close();
  }
}

const part = parts.find((p) => p.name === only);
if (only === 'export') {
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  await benchExportMemory(
    adminUrl,
    (process.env.BENCH_EXPORT_ROWS ?? '1000000').split(',').map(Number),
    (process.env.BENCH_EXPORT_LISTS ?? 'activations').split(','),
  );
} else if (only === 'start') {
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  await benchStartToHealthy(adminUrl, Number(process.env.BENCH_RUNS ?? 3));
} else if (only === 'scale' && process.env.BENCH_SCALE_PART === 'notices') {
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  await benchScaleNotices(adminUrl, { rows: Number(process.env.BENCH_ROWS ?? 1_000_000) });
} else if (only === 'scale' && process.env.BENCH_SCALE_PART === 'http') {
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  await benchScaleHttp(adminUrl, {
    rows: Number(process.env.BENCH_ROWS ?? 1_000_000),
    events: Number(process.env.BENCH_EVENTS ?? 10_000_000),
    runs: Number(process.env.BENCH_RUNS ?? 3),
    requests: Number(process.env.BENCH_REQUESTS ?? 200),
  });
} else if (only === 'scale') {
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  await benchScale(adminUrl, {
    rows: Number(process.env.BENCH_ROWS ?? 1_000_000),
    events: Number(process.env.BENCH_EVENTS ?? 10_000_000),
    runs: Number(process.env.BENCH_RUNS ?? 50),
    part: scalePart(process.env.BENCH_SCALE_PART),
  });
} else if (only === 'checkins') {
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  await benchCheckins(adminUrl, {
    rows: Number(process.env.BENCH_ROWS ?? 1_000_000),
    seconds: Number(process.env.BENCH_SECONDS ?? 15),
    connections: Number(process.env.BENCH_CONCURRENCY ?? 64),
    instances: (process.env.BENCH_INSTANCES ?? '1').split(',').map(Number),
    compareWith: process.env.BENCH_COMPARE_WITH,
  });
} else if (only === 'search') {
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  await benchAdminSearch(adminUrl, Number(process.env.BENCH_ROWS ?? 1_000_000));
} else if (only === 'floor') {
  const concurrency = Number((process.env.BENCH_CONCURRENCY ?? '16').split(',').at(-1));
  const installs = Number(process.env.BENCH_INSTALLS ?? 2000);
  const warmUp = warmUpInstalls(process.env.BENCH_WARM_UP);
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  for (const kind of (process.env.BENCH_DATABASES ?? 'postgres,pglite').split(','))
    await benchFloor(adminUrl, kind as 'pglite' | 'postgres', { installs, warmUp, concurrency });
} else if (only === 'framework') {
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  await benchFramework({
    requests: Number(process.env.BENCH_REQUESTS ?? 10000),
    slices: Number(process.env.BENCH_SLICES ?? 6),
    concurrency: Number((process.env.BENCH_CONCURRENCY ?? '16').split(',').at(-1)),
  });
} else if (only === 'http') {
  const concurrency = Number((process.env.BENCH_CONCURRENCY ?? '16').split(',').at(-1));
  const warmUp = warmUpInstalls(process.env.BENCH_WARM_UP);
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  await benchHttpServer(adminUrl, { installs: Number(process.env.BENCH_INSTALLS ?? 400), warmUp, concurrency });
} else if (part) {
  const runs = Number(process.env.BENCH_RUNS ?? 1000);
  console.log(`node ${process.version}, ${new Date().toISOString()}`);
  await benchPart(part, 'PGlite (in memory)', openCountingPglite, runs);
  await benchPart(part, `PostgreSQL (${new URL(adminUrl).host})`, () => openCountingPostgres(adminUrl), runs);
} else {
  const installs = Number(process.env.BENCH_INSTALLS ?? 400);
  const concurrencies = (process.env.BENCH_CONCURRENCY ?? '1,16').split(',').map(Number);
  const databases = (process.env.BENCH_DATABASES ?? 'pglite,postgres').split(',');
  console.log(
    `node ${process.version}, ${new Date().toISOString()}, ${installs} installs per run, concurrency ${concurrencies.join(' and ')}`,
  );
  if (databases.includes('pglite'))
    printReport(
      'PGlite (in memory, in this process)',
      await benchDatabase('pglite', pgliteTarget, installs, concurrencies),
    );
  if (databases.includes('postgres'))
    printReport(
      `PostgreSQL (${new URL(adminUrl).host})`,
      await benchDatabase('postgres', postgresTarget(adminUrl), installs, concurrencies),
    );
}

function scalePart(name: string | undefined): 'drop-day' | 'events' | 'steps' | undefined {
  if (name === undefined || name === 'drop-day' || name === 'events' || name === 'steps') return name;
  throw new Error(`BENCH_SCALE_PART is drop-day, events or steps, not ${name}`);
}

/** BENCH_WARM_UP: a whole number of installs, at least 1 (1000 when unset). */
function warmUpInstalls(value: string | undefined): number {
  if (value === undefined) return 1000;
  const installs = Number(value);
  if (!Number.isInteger(installs) || installs < 1)
    throw new Error(`BENCH_WARM_UP must be a whole number of installs, at least 1 (not ${value})`);
  return installs;
}
