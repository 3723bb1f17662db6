// `BENCH_ONLY=scale npm run bench`: DESIGN §21's design scale on a fresh PostgreSQL database filled with SQL
// (generate_series): BENCH_ROWS (default 1,000,000) servers of mixed health, as many activations with their
// codes, and BENCH_EVENTS (default 10,000,000) events over 90 days. It prints, each with the
// EXPLAIN (ANALYZE, BUFFERS) plan of its statement: the fleet reading and a scrape of its gauges; each admin
// list's first page (p99 of BENCH_RUNS, default 50); search by part of a host name (p99); the NDJSON export
// of every activation by the compiled server (rows/s, its RSS over idle); dropping a day of events;
// (check-ins sustained: BENCH_ONLY=checkins, checkins.ts, through the compiled server); the install steps' time on
// that database next to an empty one. Nothing is asserted; heavy: run it alone, under `nice`.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type pg from 'pg';
import { openDatabase } from '../../src/db/client.js';
import type { Database } from '../../src/db/database.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { listActivations } from '../../src/domain/admin-lists/activation-list.js';
import { listEvents } from '../../src/domain/admin-lists/event-list.js';
import { stateCounts } from '../../src/domain/admin-lists/state-counts.js';
import { stateCountsReading } from '../../src/domain/admin-lists/state-counts-reading.js';
import { listInstallCodes } from '../../src/domain/admin-lists/install-code-list.js';
import { listServers } from '../../src/domain/admin-lists/server-list.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { fillFleet } from '../support/fleet-rows.js';
import { createScratchDatabase } from '../support/scratch-database.js';
import { spawnService, TEST_KEK } from '../support/spawn-service.js';
import { openExplainingPostgres } from './admin-search.js';
import type { CountingDatabase } from './counting-database.js';
import { readExport } from './export-reader.js';
import { benchLifecycle } from './lifecycle.js';
import { type Measurement, ratioSpread } from './measure.js';

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef0123456789';
const MiB = 1024 * 1024;

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);
const p99 = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
};
const ms = (n: number) => n.toFixed(1);

async function rssBytes(pid: number): Promise<number> {
  const line = (await readFile(`/proc/${pid}/status`, 'utf8')).split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) * 1024;
}

export async function benchScale(
  adminUrl: string,
  options: { rows: number; events: number; runs: number; part?: 'drop-day' | 'events' | 'steps' | undefined },
) {
  const { rows, events, runs } = options;
  const scratch = await createScratchDatabase(adminUrl, 'slowdns_bench');
  const migrating = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
  await migrateDatabase(migrating.db);
  await migrating.close();
  const { db, pool, explain } = await openExplainingPostgres(scratch.url);
  const plans: string[] = [];
  const showPlan = (title: string, plan: string[]) => {
    plans.push(`\n-- ${title}`, ...plan);
  };
  try {
    const now = new Date();
    let started = performance.now();
    const page = { limit: 50 };
    const timed = async (title: string, make: (i: number) => () => Promise<unknown>) => {
      await make(0)(); // warm
      const samples: number[] = [];
      for (let i = 1; i <= runs; i++) {
        const run = make(i);
        const at = performance.now();
        await run();
        samples.push(performance.now() - at);
      }
      const [plan] = await explain(make(runs + 1));
      showPlan(title, plan!);
      console.log(`| ${title} | ${ms(p99(samples))} | ${executionMs(plan!)} |`);
    };
    if (options.part === 'steps') {
      await fillFleet(db, rows, now);
      started = performance.now();
      await fillEvents(pool, events, now);
      console.log(`filled ${rows} codes, activations and servers and ${events} events in ${seconds(started)} s`);
      await benchStepsFilledVsEmpty(
        await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' }),
        adminUrl,
        runs,
      );
      return;
    }
    if (options.part) {
      await fillEvents(pool, events, now);
      console.log(`filled ${events} events over 90 days in ${seconds(started)} s`);
      if (options.part === 'drop-day') await benchDropDay(pool, now, plans);
      else {
        console.log(`\n| admin read (${runs} runs) | p99 ms | EXPLAIN ANALYZE ms |\n|---|---|---|`);
        await benchEventPages(timed, db, now);
      }
      console.log(plans.join('\n'));
      return;
    }
    await fillFleet(db, rows, now);
    console.log(`filled ${rows} install codes, activations and servers in ${seconds(started)} s`);
    started = performance.now();
    await fillEvents(pool, events, now);
    console.log(`filled ${events} events over 90 days in ${seconds(started)} s`);
    // Mixed health: the fill's check-ins spread over 200,000 s make them active, stale and dead; a sixteenth revoked.
    await pool.query(`update servers set status = 'revoked', revoked_at = last_seen_at where right(id, 1) = '7'`);
    const health = await pool.query(`select status, count(*)::int from servers group by 1`);
    console.log('servers by status:', JSON.stringify(health.rows));

    const thresholds = { deadAfterSeconds: 86_400 };
    // The fleet: the periodic reading's statement, then a scrape of what it read.
    const reading = stateCountsReading(() => stateCounts(db, now, thresholds));
    started = performance.now();
    await reading.refresh();
    console.log(`\nfleet reading (the periodic pass, every 15 s): ${ms(performance.now() - started)} ms`);
    const [fleetPlan] = await explain(() => stateCounts(db, now, thresholds));
    showPlan('fleet reading (stateCounts, every 15 s by the periodic pass)', fleetPlan!);
    console.log('servers by health:', JSON.stringify(reading.latest()?.servers));
    const metrics = createMetrics({ counts: reading });
    const scrapes: number[] = [];
    for (let i = 0; i < runs; i++) {
      const at = performance.now();
      await metrics.registry.metrics();
      scrapes.push(performance.now() - at);
    }
    console.log(`fleet-gauge scrape p99: ${ms(p99(scrapes))} ms (no statement: the reading in memory)`);

    // Each admin list's first page, and search by part of a host name.
    console.log(`\n| admin read (${runs} runs) | p99 ms | EXPLAIN ANALYZE ms |`);
    console.log('|---|---|---|');
    await timed('install codes, first page', () => () => listInstallCodes(db, page, now));
    await timed('activations, first page', () => () => listActivations(db, page));
    await timed('servers, first page', () => () => listServers(db, page, now, thresholds));
    await timed(
      'servers stale, first page',
      () => () => listServers(db, { ...page, health: 'stale' }, now, thresholds),
    );
    await benchEventPages(timed, db, now);
    const part = (i: number) => `host-${(i * 7919) % rows}`;
    await timed(
      'search servers by part of a host name',
      (i) => () => listServers(db, { ...page, q: part(i) }, now, thresholds),
    );
    await timed('search activations by part of a host name', (i) => () => listActivations(db, { ...page, q: part(i) }));
    await timed(
      'search install codes by part of a hint',
      (i) => () =>
        listInstallCodes(
          db,
          { ...page, q: createHash('md5').update(`hint${i}`).digest('hex').slice(0, 4).toUpperCase() },
          now,
        ),
    );
    // A page deep in an export: its keyset condition is a range of the index, not a scan from the top.
    const deep = await listActivations(db, { limit: 500, since: new Date(now.getTime() - rows * 1000) });
    let cursor = deep.nextCursor;
    for (let i = 0; i < 1000 && cursor; i++) cursor = (await listActivations(db, { limit: 500, cursor })).nextCursor;
    const [deepPlan] = await explain(() => listActivations(db, { limit: 500, cursor: cursor ?? undefined }));
    showPlan('an export page 500,000 rows in (activations, keyset cursor)', deepPlan!);
    console.log(`| an export page 500,000 rows in | | ${executionMs(deepPlan!)} |`);

    // The fills wrote some GB of WAL: their checkpoint made now, not writing pages back while the export is
    // measured (as export-memory.ts does).
    await pool.query('checkpoint');
    await benchExport(scratch.url, rows);
    await benchDropDay(pool, now, plans);
    // Check-ins sustained are measured through the compiled server over HTTP: BENCH_ONLY=checkins (checkins.ts).
    // The service's own pool from here (10 connections, its statement timeout), as a started server has.
    const service = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });

    // The install steps on this database and on an empty one.
    await benchStepsFilledVsEmpty(service, adminUrl, runs);
    console.log(`\nPlans (EXPLAIN (ANALYZE, BUFFERS)):${plans.join('\n')}`);
  } finally {
    pool.on('error', () => {});
    await pool.end();
    await scratch.drop();
  }
}

/**
 * Slices of each database, taking turns (the first of a pair alternating), so that a warmer JIT or a busier
 * machine favours neither: 8, as one slice's ratio alone strays ±0.15 on this machine (4 left medians 0.1 apart run to run).
 */
const STEP_SLICES = 8;

/**
 * The install steps through the app (in this process, one request at a time, N per slice) on the filled
 * database and on an empty one, in slices taking turns: per step, the median of the slices' means on each
 * side and filled ÷ empty throughput (empty's mean ÷ filled's) with the slices' lowest–highest. Closes `filledService`.
 */
async function benchStepsFilledVsEmpty(
  filledService: { db: Database; close: () => Promise<void> },
  adminUrl: string,
  runs: number,
): Promise<void> {
  const filled: CountingDatabase = {
    kind: 'postgres',
    db: filledService.db,
    statements: () => 0,
    close: () => filledService.close(),
  };
  // The empty side through the same pool as the filled one (the service's, openDatabase), not the bench's counting one.
  const emptyScratch = await createScratchDatabase(adminUrl, 'slowdns_bench');
  const emptyService = await openDatabase({ databaseUrl: emptyScratch.url, dataDir: 'unused' });
  await migrateDatabase(emptyService.db);
  const empty: CountingDatabase = {
    kind: 'postgres',
    db: emptyService.db,
    statements: () => 0,
    close: () => emptyService.close().finally(() => emptyScratch.drop()),
  };
  const lifecycleRuns = Math.max(100, runs * 2);
  const slices: { filled: Measurement[]; empty: Measurement[] }[] = [];
  try {
    for (let slice = 0; slice < STEP_SLICES; slice++) {
      const first = slice % 2 === 0 ? filled : empty;
      const second = first === filled ? empty : filled;
      // Each side's slices use addresses and machines of their own (a slice uses 2 × (N + warm-up) of them).
      const offset = slice * 2 * (lifecycleRuns + 100);
      const a = await benchLifecycle(first, lifecycleRuns, offset);
      const b = await benchLifecycle(second, lifecycleRuns, offset);
      slices.push(first === filled ? { filled: a, empty: b } : { filled: b, empty: a });
    }
  } finally {
    await filled.close();
    await empty.close();
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((x, y) => x - y);
    const middle = sorted.length / 2;
    return sorted.length % 2 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  console.log(
    `\ninstall steps through the app, ${STEP_SLICES} slices of N=${lifecycleRuns} each side taking turns: mean µs on the filled database vs an empty one`,
  );
  console.log('| step | filled µs (median of slices) | empty µs | throughput filled / empty (slices) |');
  console.log('|---|---|---|---|');
  for (const { case: step } of slices[0]!.filled) {
    const meanOf = (side: Measurement[]) => side.find((m) => m.case === step)!.meanUs;
    const ratios = slices.map((s) => meanOf(s.empty) / meanOf(s.filled));
    const filledUs = median(slices.map((s) => meanOf(s.filled)));
    const emptyUs = median(slices.map((s) => meanOf(s.empty)));
    console.log(
      `| ${step} | ${Math.round(filledUs)} | ${Math.round(emptyUs)} | ${median(ratios).toFixed(2)}${ratioSpread(ratios)} |`,
    );
  }
}

type Timed = (title: string, make: (i: number) => () => Promise<unknown>) => Promise<void>;

/** The events list's first pages: all, of a type an eighth of the events have, of a type none has (every window read, the last unbounded). */
async function benchEventPages(timed: Timed, db: Database, now: Date): Promise<void> {
  const page = { limit: 50, now, retentionDays: 90 };
  await timed('events, first page', () => () => listEvents(db, page));
  await timed('events of one type, first page', () => () => listEvents(db, { ...page, type: 'server.revoked' }));
  await timed(
    'events of a type none has, first page (every window)',
    () => () => listEvents(db, { ...page, type: 'webhook_endpoint.created' }),
  );
}

const executionMs = (plan: string[]) =>
  plan
    .find((line) => line.startsWith('Execution Time'))
    ?.replace('Execution Time: ', '')
    .replace(' ms', '') ?? '?';

/** `count` events over the last 90 days, about the filled codes, activations and servers, their indexes made after. */
export async function fillEvents(pool: pg.Pool, count: number, now: Date): Promise<void> {
  const indexes = (
    await pool.query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes where tablename = 'events' and indexname not in (select conname from pg_constraint)`,
    )
  ).rows;
  for (const { indexname } of indexes) await pool.query(`drop index ${indexname}`);
  // Partitioned by day (drizzle/0015): the 91 days' partitions first (today's and the 90 before), as the service would have made them day by day.
  const partitioned = (
    await pool.query(
      `select 1 from pg_partitioned_table p join pg_class c on c.oid = p.partrelid where c.relname = 'events'`,
    )
  ).rowCount;
  if (partitioned) {
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    for (let day = -90; day <= 0; day++) {
      const from = new Date(today + day * 86_400_000);
      const to = new Date(from.getTime() + 86_400_000);
      const name = `events_p${from.toISOString().slice(0, 10).replaceAll('-', '')}`;
      await pool.query(
        `create table if not exists ${name} partition of events for values from ('${from.toISOString()}') to ('${to.toISOString()}')`,
      );
    }
  }
  const types = [
    'install_code.issued',
    'install_code.activated',
    'activation.created',
    'activation.confirmed',
    'install_code.consumed',
    'server.registered',
    'server.revoked',
    'activation.released',
  ];
  // In slices of a million: one statement that long would hold its snapshot the whole time.
  for (let from = 1; from <= count; from += 1_000_000) {
    const to = Math.min(count, from + 999_999);
    await pool.query(
      `insert into events (type, occurred_at, actor, install_code_id, activation_id, server_id, data, delivered_at)
       select (array[${types.map((t) => `'${t}'`).join(',')}])[1 + i % ${types.length}],
              $1::timestamptz - make_interval(secs => (90 * 86400.0) * ($2::int - i) / $2::int),
              'installer',
              'ic_' || substr(md5('ic' || (i % 1000000)), 1, 16),
              'act_' || substr(md5('act' || (i % 1000000)), 1, 16),
              case when i % 8 >= 5 then 'srv_' || substr(md5('srv' || 'act_' || substr(md5('act' || (i % 1000000)), 1, 16)), 1, 16) end,
              jsonb_build_object('n', i),
              $1::timestamptz
       from generate_series($3::int, $4::int) i`,
      [now.toISOString(), count, from, to],
    );
  }
  // pg_indexes defines a partitioned table's index `ON ONLY` the parent (no partition's index built, the
  // parent's left invalid): made again on the whole table, as the migrations make it.
  for (const { indexdef } of indexes) await pool.query(indexdef.replace(' ON ONLY ', ' ON '));
  await pool.query('vacuum analyze events');
}

/** The compiled server exports every activation as NDJSON: rows/s and its resident memory over idle. */
async function benchExport(url: string, rows: number): Promise<void> {
  const metricsPort = 7550 + Math.floor(Math.random() * 40);
  const server = spawnService({
    DATABASE_URL: url,
    KEY_ENCRYPTION_KEY: TEST_KEK,
    ADMIN_TOKEN,
    METRICS_PORT: String(metricsPort),
  });
  try {
    const port = await server.port;
    await server.logged('ready', 120_000);
    const pid = server.process.pid!;
    await new Promise((r) => setTimeout(r, 2000));
    const idle = await rssBytes(pid);
    let highest = idle;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        highest = Math.max(highest, await rssBytes(pid));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const { lines, seconds: took } = await readExport(`http://127.0.0.1:${port}/api/v2/admin/activations`, {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      accept: 'application/x-ndjson',
    });
    sampling = false;
    await sampler;
    console.log(
      `\nNDJSON export of every activation (${rows}) by the compiled server: ${lines} rows in ${took.toFixed(1)} s = ${Math.round(lines / took)} rows/s; RSS idle ${(idle / MiB).toFixed(0)} MiB, highest ${(highest / MiB).toFixed(0)} MiB (+${((highest - idle) / MiB).toFixed(0)} MiB)`,
    );
  } finally {
    await server.stop();
  }
}

/** The oldest whole day of events goes (the second oldest partition: the oldest holds part of a day): a partition dropped when events is partitioned, else a DELETE. */
async function benchDropDay(pool: pg.Pool, now: Date, plans: string[]): Promise<void> {
  const partitions = (
    await pool.query<{ name: string }>(
      `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
       where p.relname = 'events' and c.relname like 'events\\_p%' order by c.relname offset 1 limit 1`,
    )
  ).rows;
  const started = performance.now();
  if (partitions[0]) {
    const { name } = partitions[0];
    const count = (await pool.query(`select count(*)::int as n from ${name}`)).rows[0].n;
    const at = performance.now();
    // As retention drops an expired day (src/db/time-partitions.ts, dropPartition): a plain DROP of the partition.
    await pool.query(`drop table ${name}`);
    console.log(
      `\ndropping the oldest day of events, a partition of ${count} rows (${name}): ${ms(performance.now() - at)} ms`,
    );
    return;
  }
  const cutoff = new Date(now.getTime() - 89 * 86_400_000).toISOString();
  const plan = (
    await pool.query(`explain (analyze, buffers) delete from events where occurred_at < $1`, [cutoff])
  ).rows.map((r: Record<string, string>) => r['QUERY PLAN']!);
  plans.push('\n-- pruning the oldest day of events (events not partitioned: a DELETE)', ...plan);
  console.log(
    `\npruning the oldest day of events, not partitioned (a DELETE of ${/rows=(\d+)/.exec(plan.find((l) => l.includes('Index Scan') || l.includes('Seq Scan')) ?? '')?.[1] ?? '?'} rows): ${ms(performance.now() - started)} ms`,
  );
}
