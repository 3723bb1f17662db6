// BENCH_ONLY=floor: the service as `npm start` runs it and the floor (floor-server.ts: bare node:http,
// the service's own statements, one Ed25519 signature per token step, JSON answers), each in its own
// process, driven over real HTTP by this one at the same concurrency, slice by slice taking turns (the
// first of each pair alternating), so the machine's drift meets both alike. Per step: requests per second,
// each server's CPU per request (/proc), and their ratios with the slices' lowest and highest.
// BENCH_CPU_PROF=<dir>: both run under node --cpu-prof, and each profile is summarised per step.
// BENCH_BASELINE=<dir>: a third side, the compiled server of another checkout (its scripts/start.mjs, e.g. a
// `git archive` of main with node_modules linked), taking its turn in every slice like the other two, so
// a change is measured before and after in one run: its ratios to the floor, and this server's to it.
// BENCH_BASELINE_FLAGS="<node flags>": given to the baseline's node alone (e.g. `--single-threaded-gc` with
// BENCH_BASELINE a checkout of this very commit), so a runtime flag is measured against the same build without it.
// BENCH_FLOOR_MUSTS=1: one more side, the floor that also does what the design requires of each step and the
// floor skips (floor-musts.ts: the contract's schemas, the service's hashes): how much of the service's excess
// over the floor any service keeping those promises pays, and how much is the service's own.
// With three sides (or four) the slices of a step do not always divide evenly: one side may go first once more.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { spawnService, TEST_KEK, type SpawnedService } from '../support/spawn-service.js';
import { openStartedDatabase, startBenchService } from './bench-service.js';
import { BUCKETS, summariseProfile, type StepWindow } from './cpu-profile.js';
import { startCountingProxy } from './counting-proxy.js';
import { httpClient, serverCpuMs, waitReady } from './http-server.js';
import {
  atConcurrency,
  createInstalls,
  firstHalfConfirmed,
  indicesFor,
  LIFECYCLE,
  runStep,
  type Step,
  warmUp,
} from './lifecycle-steps.js';
import { capturePglite } from './pglite-capture.js';
import { ratioSpread } from './measure.js';
import { capture } from './steps-bench.js';
import type { ReplayUnit } from './wire-capture.js';

const SLICE = 250;

interface Side {
  name: 'service' | 'baseline' | 'floor' | 'floor-musts';
  server: SpawnedService;
  port: number;
  spawnedAt: number;
  agent: http.Agent;
  windows: StepWindow[];
  /** Per step: requests, wall ms and CPU µs per slice. */
  slices: Map<Step, { requests: number; wallMs: number; cpuUs: number }[]>;
}

/**
 * The service's statements for every install, captured one request at a time (step-bench's capture):
 * `installs` measured ones, the first half of them confirmed, then `warmUp` more, every one confirmed as the
 * warm-up confirms it.
 */
async function captureUnits(
  adminUrl: string | undefined,
  installs: number,
  warmUp: number,
): Promise<Map<Step, ReplayUnit[][]>> {
  const measured = firstHalfConfirmed(installs);
  const confirmed = (i: number) => i >= installs || measured(i);
  if (adminUrl) {
    const scratch = await createScratchDatabase(adminUrl, 'slowdns_bench');
    const proxy = await startCountingProxy(scratch.url);
    const service = await startBenchService(proxy.url);
    try {
      return (await capture(service, proxy.recorder, installs + warmUp, confirmed)).units;
    } finally {
      await service.handle.close();
      await proxy.close();
      await scratch.drop();
    }
  }
  const pglite = capturePglite();
  const service = await startBenchService(undefined);
  try {
    return (await capture(service, pglite.recorder, installs + warmUp, confirmed)).units;
  } finally {
    pglite.stop();
    await service.handle.close();
  }
}

function profiled(profileDir: string | undefined, side: string): string[] {
  return profileDir ? ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${join(profileDir, side)}`] : [];
}

async function runSlice(
  side: Side,
  step: Step,
  slice: number[],
  list: ReturnType<typeof createInstalls>,
  concurrency: number,
) {
  const client = httpClient(side.port, side.agent);
  const pid = side.server.process.pid!;
  const cpuBefore = await serverCpuMs(pid);
  const started = performance.now();
  await atConcurrency(slice, concurrency, (i) => runStep(client, step, list[i]!));
  const wallMs = performance.now() - started;
  const cpuUs = ((await serverCpuMs(pid)) - cpuBefore) * 1000;
  side.windows.push({
    step,
    fromMs: started - side.spawnedAt - 250,
    toMs: started + wallMs - side.spawnedAt + 250,
    cpuUs,
    requests: slice.length,
  });
  const slices = side.slices.get(step) ?? [];
  slices.push({ requests: slice.length, wallMs, cpuUs });
  side.slices.set(step, slices);
}

/** BENCH_BASELINE_FLAGS, split on whitespace: node's flags for the baseline side alone. */
function baselineFlags(): string[] {
  return (process.env.BENCH_BASELINE_FLAGS ?? '').split(/\s+/).filter(Boolean);
}

export async function benchFloor(
  adminUrl: string,
  kind: 'pglite' | 'postgres',
  { installs, warmUp: warmUpInstalls, concurrency }: { installs: number; warmUp: number; concurrency: number },
): Promise<void> {
  const onPostgres = kind === 'postgres';
  const units = await captureUnits(onPostgres ? adminUrl : undefined, installs, warmUpInstalls);
  const folder = await mkdtemp(join(tmpdir(), 'slowdns-floor-'));
  const unitsFile = join(folder, 'units.json');
  await writeFile(unitsFile, JSON.stringify(Object.fromEntries(units)));
  const profileDir = process.env.BENCH_CPU_PROF ? join(process.env.BENCH_CPU_PROF, kind) : undefined;
  if (profileDir) {
    // A directory of its own per run: summariseProfile reads every profile in it.
    await rm(profileDir, { recursive: true, force: true });
    await mkdir(profileDir, { recursive: true });
  }
  const serviceDb = onPostgres ? await createScratchDatabase(adminUrl, 'slowdns_bench') : undefined;
  const scratch: ({ drop(): Promise<void> } | undefined)[] = [];
  // When each server was spawned: its CPU profile's clock starts there, and the step windows are taken from it.
  const spawnedAt = new Map<SpawnedService, number>();
  const spawn = (env: Record<string, string>, command: string[]) => {
    const at = performance.now();
    const server = spawnService(env, command);
    spawnedAt.set(server, at);
    return server;
  };
  /** Each floor's migrated database of its own, on PostgreSQL (the floors replay the same captured rows). */
  const floorDatabase = async () => {
    const db = onPostgres ? await createScratchDatabase(adminUrl, 'slowdns_bench') : undefined;
    scratch.push(db);
    if (db) await (await openStartedDatabase(db.url)).close();
    return db;
  };
  const floorDb = await floorDatabase();
  const mustsDb = process.env.BENCH_FLOOR_MUSTS ? await floorDatabase() : undefined;
  /** A floor (floor-server.ts); with `musts`, the design's musts too, keyed as the service is (plain on PGlite, as it). */
  const spawnFloor = (db: ScratchDatabase | undefined, musts: boolean) => {
    const env: Record<string, string> = { FLOOR_UNITS: unitsFile };
    if (db) env.DATABASE_URL = db.url;
    if (musts) env.FLOOR_MUSTS = '1';
    if (musts && db) env.FLOOR_MUSTS_KEK = TEST_KEK;
    const name = musts ? 'floor-musts' : 'floor';
    return spawn(env, ['--import', 'tsx', ...profiled(profileDir, name), 'test/bench/floor-server.ts']);
  };
  const servicePort = 7850 + Math.floor(Math.random() * 50);
  const sides: Side[] = [];
  try {
    const service = spawn(
      {
        ...(serviceDb ? { DATABASE_URL: serviceDb.url, KEY_ENCRYPTION_KEY: TEST_KEK } : { DATA_DIR: 'memory://' }),
        PORT: String(servicePort),
        TRUST_PROXY: '1',
        LOG_LEVEL: 'warn',
      },
      [...profiled(profileDir, 'service'), 'scripts/start.mjs'],
    );
    const baselineDir = process.env.BENCH_BASELINE;
    const baselinePort = servicePort + 50;
    const baselineDb = baselineDir && onPostgres ? await createScratchDatabase(adminUrl, 'slowdns_bench') : undefined;
    scratch.push(baselineDb);
    const baseline = baselineDir
      ? spawn(
          {
            ...(baselineDb
              ? { DATABASE_URL: baselineDb.url, KEY_ENCRYPTION_KEY: TEST_KEK }
              : { DATA_DIR: 'memory://' }),
            PORT: String(baselinePort),
            TRUST_PROXY: '1',
            LOG_LEVEL: 'warn',
          },
          [...profiled(profileDir, 'baseline'), ...baselineFlags(), join(baselineDir, 'scripts/start.mjs')],
        )
      : undefined;
    const floor = spawnFloor(floorDb, false);
    const floorMusts = process.env.BENCH_FLOOR_MUSTS ? spawnFloor(mustsDb, true) : undefined;
    const side = (name: Side['name'], server: SpawnedService, port: number): Side => ({
      name,
      server,
      port,
      spawnedAt: spawnedAt.get(server)!,
      agent: new http.Agent({ keepAlive: true, maxSockets: concurrency }),
      windows: [],
      slices: new Map(),
    });
    sides.push(side('service', service, servicePort));
    if (baseline) sides.push(side('baseline', baseline, baselinePort));
    sides.push(side('floor', floor, await floor.port));
    if (floorMusts) sides.push(side('floor-musts', floorMusts, await floorMusts.port));
    for (const s of sides) await waitReady(s.server, s.port);
    // Warm-up (not measured): installs numbered after the measured ones (the floor replays each install's statements once).
    const warm = createInstalls(installs + warmUpInstalls, 253).slice(installs);
    for (const s of sides) await warmUp(httpClient(s.port, s.agent), warm, concurrency);
    const lists = sides.map(() => createInstalls(installs, 3));
    for (const step of LIFECYCLE) {
      const indices = indicesFor(step, installs);
      const count = Math.max(1, Math.floor(indices.length / SLICE));
      const size = Math.ceil(indices.length / count);
      for (let k = 0; k < count; k++) {
        const slice = indices.slice(k * size, (k + 1) * size);
        // Each side goes first in turn (with two sides: alternating).
        for (const s of sides.map((_, j) => (j + k) % sides.length)) {
          if (profileDir) await new Promise((r) => setTimeout(r, 600));
          await runSlice(sides[s]!, step, slice, lists[s]!, concurrency);
        }
      }
    }
  } finally {
    for (const s of sides) {
      s.agent.destroy();
      await s.server.stop();
    }
    await serviceDb?.drop();
    for (const db of scratch) await db?.drop();
    await rm(folder, { recursive: true, force: true });
  }
  printComparison(kind, installs, concurrency, sides);
  if (profileDir) await printProfiles(profileDir, sides);
}

function printComparison(kind: string, installs: number, concurrency: number, sides: Side[]): void {
  const service = sides.find((s) => s.name === 'service')!;
  const baseline = sides.find((s) => s.name === 'baseline');
  const floor = sides.find((s) => s.name === 'floor')!;
  console.log(
    `\nthe compiled server next to the floor over HTTP on ${kind}, concurrency ${concurrency}, ${installs} installs, slices of ~${SLICE} taking turns`,
  );
  printRatios(service, floor, 'service', 'floor');
  const musts = sides.find((s) => s.name === 'floor-musts');
  if (musts) {
    console.log("\nthe floor with the design's musts (floor-musts.ts) next to the floor, in the same slices");
    printRatios(musts, floor, 'musts', 'floor');
    console.log("\nthis server next to the floor with the design's musts, in the same slices");
    printRatios(service, musts, 'service', 'musts');
  }
  if (!baseline) return;
  const flags = baselineFlags();
  const flagged = flags.length > 0 ? `, node ${flags.join(' ')}` : '';
  console.log(
    `\nthe baseline (BENCH_BASELINE=${process.env.BENCH_BASELINE}${flagged}) next to the same floor, in the same slices`,
  );
  printRatios(baseline, floor, 'baseline', 'floor');
  console.log('\nthis server next to the baseline, in the same slices');
  printRatios(service, baseline, 'service', 'baseline');
}

function printRatios(a: Side, b: Side, aName: string, bName: string): void {
  console.log(
    `| step | ${aName} req/s | ${bName} req/s | ${aName} ÷ ${bName} req/s (slices) | CPU ms per request, ${aName} / ${bName} | ${aName} ÷ ${bName} CPU (slices) |`,
  );
  console.log('|---|---|---|---|---|---|');
  for (const step of LIFECYCLE) {
    const xs = a.slices.get(step)!;
    const ys = b.slices.get(step)!;
    type Slice = (typeof xs)[number];
    const sum = (list: Slice[], f: (x: Slice) => number) => list.reduce((t, x) => t + f(x), 0);
    const rps = (list: Slice[]) => (sum(list, (x) => x.requests) / sum(list, (x) => x.wallMs)) * 1000;
    const cpu = (list: Slice[]) => sum(list, (x) => x.cpuUs) / sum(list, (x) => x.requests) / 1000;
    const rpsRatios = xs.map((x, k) => ys[k]!.wallMs / x.wallMs);
    const cpuRatios = xs.map((x, k) => x.cpuUs / Math.max(1, ys[k]!.cpuUs));
    console.log(
      `| ${step} | ${rps(xs).toFixed(0)} | ${rps(ys).toFixed(0)} | ${(rps(xs) / rps(ys)).toFixed(2)}${ratioSpread(rpsRatios)} | ${cpu(xs).toFixed(2)} / ${cpu(ys).toFixed(2)} | ${(cpu(xs) / cpu(ys)).toFixed(2)}${ratioSpread(cpuRatios)} |`,
    );
  }
}

async function printProfiles(profileDir: string, sides: Side[]): Promise<void> {
  console.log(
    `\nCPU profiles: µs of CPU per request by bucket (the samples' shares of the CPU /proc counted) (${profileDir})`,
  );
  console.log(`| step | side | ${BUCKETS.join(' | ')} | total |`);
  console.log(`|---|---|${BUCKETS.map(() => '---|').join('')}---|`);
  for (const s of sides) await writeFile(join(profileDir, s.name, 'windows.json'), JSON.stringify(s.windows));
  const summaries = await Promise.all(sides.map((s) => summariseProfile(join(profileDir, s.name), s.windows)));
  for (const step of LIFECYCLE)
    for (const [k, s] of sides.entries()) {
      const row = summaries[k]!.find((x) => x.step === step);
      if (row)
        console.log(
          `| ${step} | ${s.name} | ${BUCKETS.map((b) => row.perRequestUs[b]).join(' | ')} | ${row.perRequestUs.total} |`,
        );
    }
  for (const [k, s] of sides.entries())
    for (const { step, top } of summaries[k]!)
      if (['precheck', 'activate', 'confirm'].includes(step))
        console.log(`\n${s.name} ${step}, the busiest functions (self):\n  ${top.slice(0, 8).join('\n  ')}`);
}
