// Each install step through the service and the same SQL through a bare driver, side by side on one
// database kind: statements and round trips counted on the wire (one request at a time), then
// requests per second, p50 / p99 latency and CPU per request at each concurrency. The bare side signs
// one Ed25519 token on the steps that answer one (precheck, activate, confirm), as the design must.
import type { DatabaseHandle } from '../../src/db/database.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { bareNodePostgres, barePglite, barePostgres, type BareClient } from './bare-replay.js';
import { openStartedDatabase, startBenchService, type BenchService } from './bench-service.js';
import { startCountingProxy } from './counting-proxy.js';
import { createInstalls, indicesFor, LIFECYCLE, runStep, STEPS, type Step } from './lifecycle-steps.js';
import { floorToken, SIGNED_STEPS } from './floor-token.js';
import { capturePglite } from './pglite-capture.js';
import type { CostRecorder, ReplayUnit } from './wire-capture.js';
import { ratioSpread } from './measure.js';

interface StepCount {
  step: Step;
  statements: number;
  roundTrips: number;
  transactions: number;
}

interface Timing {
  rps: number;
  p50: number;
  p99: number;
  cpuMs: number;
  /** Requests per second in each slice, in the order they ran. */
  sliceRps: number[];
}

interface StepTiming {
  step: Step;
  concurrency: number;
  service: Timing;
  /** One per bare client of the target, in its order. */
  bare: Timing[];
}

export interface DatabaseReport {
  counts: StepCount[];
  timings: StepTiming[];
  namedStatements: boolean;
  bareNames: string[];
}

interface BareKind {
  name: string;
  open(url: string | undefined, handle: DatabaseHandle | undefined, namedStatements: boolean): BareClient;
}

interface Target {
  /** A fresh database in the state a started server leaves it; its URL for PostgreSQL. */
  fresh(): Promise<{ url: string | undefined; drop(): Promise<void> }>;
  /** The bare clients that replay the service's SQL, each on a fresh database of its own. */
  bares: BareKind[];
}

export function postgresTarget(adminUrl: string): Target {
  return {
    fresh: async () => {
      const scratch: ScratchDatabase = await createScratchDatabase(adminUrl, 'slowdns_bench');
      return { url: scratch.url, drop: scratch.drop };
    },
    bares: [
      { name: 'bare postgres.js', open: (url, _handle, named) => barePostgres(url!, named) },
      { name: 'bare node-postgres', open: (url) => bareNodePostgres(url!) },
    ],
  };
}

export const pgliteTarget: Target = {
  fresh: async () => ({ url: undefined, drop: async () => {} }),
  bares: [{ name: 'bare PGlite', open: (_url, handle) => barePglite(handle!) }],
};

/** What one side spent on its share of a step: summed over the slices it ran. */
interface Spent {
  requests: number;
  wallMs: number;
  cpuMicros: number;
  latencies: number[];
  sliceRps: number[];
}

const nothingSpent = (): Spent => ({ requests: 0, wallMs: 0, cpuMicros: 0, latencies: [], sliceRps: [] });

/** Runs `indices` at `concurrency` and adds what it took to `spent`. */
async function timed(
  indices: number[],
  concurrency: number,
  run: (i: number) => Promise<void>,
  spent: Spent,
): Promise<void> {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < indices.length) {
        const i = indices[next++]!;
        const at = performance.now();
        await run(i);
        spent.latencies.push(performance.now() - at);
      }
    }),
  );
  const wallMs = performance.now() - started;
  spent.wallMs += wallMs;
  spent.sliceRps.push((indices.length / wallMs) * 1000);
  const used = process.cpuUsage(cpu);
  spent.cpuMicros += used.user + used.system;
  spent.requests += indices.length;
}

function timing(spent: Spent): Timing {
  const latencies = [...spent.latencies].sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return {
    rps: (spent.requests / spent.wallMs) * 1000,
    p50: at(0.5),
    p99: at(0.99),
    cpuMs: spent.cpuMicros / 1000 / spent.requests,
    sliceRps: spent.sliceRps,
  };
}

/**
 * The machine is shared and its speed drifts within seconds: each step runs in slices of at least 200
 * requests, the service and each bare client taking turns slice by slice, so both sides meet the same
 * conditions. Each side's throughput is its requests over the time it ran; the report gives the ratio's
 * lowest and highest slice beside it.
 */
const MAX_SLICES = 8;

function slicesOf(indices: number[]): number[][] {
  const count = Math.max(1, Math.min(MAX_SLICES, Math.floor(indices.length / 200)));
  const size = Math.ceil(indices.length / count);
  return Array.from({ length: count }, (_, k) => indices.slice(k * size, (k + 1) * size)).filter(
    (slice) => slice.length > 0,
  );
}

/** One request at a time through the counting recorder: what each step costs, and what to replay. */
export async function capture(
  service: BenchService,
  recorder: CostRecorder,
  installs: number,
  /** Which installs end in confirm (the others in release): the first half unless told. */
  confirmed?: (index: number) => boolean,
): Promise<{ counts: StepCount[]; units: Map<Step, ReplayUnit[][]> }> {
  // Warm-up (not counted): connections opened, types fetched, statements prepared.
  for (const install of createInstalls(5, 254))
    for (const step of STEPS) if (step !== 'release') await runStep(service, step, install);
  const list = createInstalls(installs, 1);
  const counts: StepCount[] = [];
  const units = new Map<Step, ReplayUnit[][]>();
  for (const step of STEPS) {
    const indices = indicesFor(step, installs, confirmed);
    const perRequest: ReplayUnit[][] = [];
    const total = { statements: 0, roundTrips: 0, transactions: 0 };
    for (const i of indices) {
      recorder.begin();
      await runStep(service, step, list[i]!);
      const cost = recorder.end();
      total.statements += cost.statements;
      total.roundTrips += cost.roundTrips;
      total.transactions += cost.transactions;
      perRequest[i] = cost.units;
    }
    const per = (n: number) => Math.round((n / indices.length) * 100) / 100;
    counts.push({
      step,
      statements: per(total.statements),
      roundTrips: per(total.roundTrips),
      transactions: per(total.transactions),
    });
    units.set(step, perRequest);
  }
  return { counts, units };
}

export async function benchDatabase(
  kind: 'pglite' | 'postgres',
  target: Target,
  installs: number,
  concurrencies: number[],
): Promise<DatabaseReport> {
  // 1. Counting: one request at a time, every statement read off the wire (or PGlite's calls).
  const captureDb = await target.fresh();
  let counted: Awaited<ReturnType<typeof capture>>;
  let namedStatements: boolean;
  if (kind === 'postgres') {
    const proxy = await startCountingProxy(captureDb.url!);
    const service = await startBenchService(proxy.url);
    try {
      counted = await capture(service, proxy.recorder, installs);
      namedStatements = proxy.recorder.namedStatements;
    } finally {
      await service.handle.close();
      await proxy.close();
      await captureDb.drop();
    }
  } else {
    const pglite = capturePglite();
    const service = await startBenchService(undefined);
    try {
      counted = await capture(service, pglite.recorder, installs);
      namedStatements = pglite.recorder.namedStatements;
    } finally {
      pglite.stop();
      await service.handle.close();
    }
  }

  // 2. Timing: the service and each bare replay of the captured SQL, step by step, each on its own fresh database.
  const timings: StepTiming[] = [];
  for (const concurrency of concurrencies) {
    const serviceDb = await target.fresh();
    const service = await startBenchService(serviceDb.url);
    const bares: { client: BareClient; db: Awaited<ReturnType<Target['fresh']>> }[] = [];
    for (const bare of target.bares) {
      const db = await target.fresh();
      const handle = await openStartedDatabase(db.url);
      if (kind === 'postgres') await handle.close();
      bares.push({ db, client: bare.open(db.url, kind === 'pglite' ? handle : undefined, namedStatements) });
    }
    try {
      const list = createInstalls(installs, 2);
      for (const step of STEPS) {
        const units = counted.units.get(step)!;
        const serviceSpent = nothingSpent();
        const bareSpent = bares.map(nothingSpent);
        const signs = SIGNED_STEPS.includes(step);
        for (const slice of slicesOf(indicesFor(step, installs))) {
          await timed(slice, concurrency, (i) => runStep(service, step, list[i]!), serviceSpent);
          for (const [b, bare] of bares.entries())
            await timed(
              slice,
              concurrency,
              async (i) => {
                await bare.client.replay(units[i]!);
                if (signs) floorToken(i);
              },
              bareSpent[b]!,
            );
        }
        timings.push({ step, concurrency, service: timing(serviceSpent), bare: bareSpent.map(timing) });
      }
    } finally {
      await service.handle.close();
      await serviceDb.drop();
      for (const bare of bares) {
        await bare.client.close();
        await bare.db.drop();
      }
    }
  }
  return { counts: counted.counts, timings, namedStatements, bareNames: target.bares.map((b) => b.name) };
}

/** The lowest and highest of the ratios slice by slice: how far the machine's noise moved the ratio. */
function sliceSpread(service: Timing, bare: Timing): string {
  return ratioSpread(service.sliceRps.map((rps, k) => rps / bare.sliceRps[k]!));
}

export function printReport(title: string, report: DatabaseReport): void {
  const r = (n: number, d = 1) => n.toFixed(d);
  console.log(`\n${title}`);
  console.log(
    `statements (BEGIN/COMMIT included) and round trips, counted on the wire; named prepared statements: ${report.namedStatements ? 'yes' : 'no'}`,
  );
  console.log('| step | statements | round trips | transactions |');
  console.log('|---|---|---|---|');
  for (const c of report.counts) console.log(`| ${c.step} | ${c.statements} | ${c.roundTrips} | ${c.transactions} |`);
  const lifecycle = report.counts.filter((c) => LIFECYCLE.includes(c.step));
  const sum = (f: (c: StepCount) => number) => Math.round(lifecycle.reduce((a, c) => a + f(c), 0) * 100) / 100;
  console.log(
    `| lifecycle (${LIFECYCLE.join(', ')}) | ${sum((c) => c.statements)} | ${sum((c) => c.roundTrips)} | ${sum((c) => c.transactions)} |`,
  );
  const names = report.bareNames;
  console.log(
    `\n| step | concurrency | service req/s | ${names.map((n) => `${n} req/s | service / ${n}`).join(' | ')} | service p50 / p99 ms | ${names.map((n) => `${n} p50 / p99 ms`).join(' | ')} | CPU ms per request, service / ${names.join(' / ')} |`,
  );
  console.log(`|---|---|---|${names.map(() => '---|---|').join('')}---|${names.map(() => '---|').join('')}---|`);
  for (const t of report.timings) {
    const ratios = t.bare
      .map((b) => `${r(b.rps, 0)} | ${r(t.service.rps / b.rps, 2)}${sliceSpread(t.service, b)}`)
      .join(' | ');
    const latencies = t.bare.map((b) => `${r(b.p50, 2)} / ${r(b.p99, 2)}`).join(' | ');
    const cpu = [t.service, ...t.bare].map((x) => r(x.cpuMs, 2)).join(' / ');
    console.log(
      `| ${t.step} | ${t.concurrency} | ${r(t.service.rps, 0)} | ${ratios} | ${r(t.service.p50, 2)} / ${r(t.service.p99, 2)} | ${latencies} | ${cpu} |`,
    );
  }
}
