// The server's CPU profile (node --cpu-prof) summarised per step: how the samples of each step's window
// share out by where the code comes from, applied to the CPU per request the server really spent (read
// from /proc: on a loaded machine the sampler's own clock runs on while the process waits for a core, so
// sampled times overstate CPU; their shares hold). The compiled server is bundled, so each frame is
// taken back to its source file through the bundle's source map (node:module's SourceMap).
import { readdir, readFile } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export const BUCKETS = ['routing/adapter', 'zod', 'service', 'driver', 'node core+GC', 'other'] as const;
type Bucket = (typeof BUCKETS)[number];

/** A step's window (or one slice of it) in ms since the server process was spawned, and what it answered. */
export interface StepWindow {
  step: string;
  fromMs: number;
  toMs: number;
  /** The server's CPU in this window (µs), as /proc counts it. */
  cpuUs: number;
  requests: number;
}

function bucketOf(source: string): Bucket {
  if (source === '' || source.startsWith('node:')) return 'node core+GC';
  // PGlite's PostgreSQL, compiled to WebAssembly.
  if (source.startsWith('wasm://')) return 'driver';
  if (/node_modules\/(hono|@hono)\//.test(source)) return 'routing/adapter';
  if (/node_modules\/zod\//.test(source)) return 'zod';
  if (/node_modules\/(pg|pg-[a-z]+|postgres-[a-z]+|drizzle-orm|@electric-sql)\//.test(source)) return 'driver';
  // The service's own code, or the floor's (test/bench/floor-server.ts and what it imports).
  if (/\/(src|test\/bench)\/.*\.ts$/.test(source)) return 'service';
  return 'other';
}

/** The source file of each frame: through the bundle's source map for dist/, as it is otherwise. */
function sourceResolver(): (frame: ProfileNode['callFrame']) => Promise<string> {
  const maps = new Map<string, SourceMap | undefined>();
  return async (frame) => {
    const { url } = frame;
    if (!url.startsWith('file://') || !url.includes('/dist/')) return url;
    if (!maps.has(url)) {
      const path = fileURLToPath(url);
      const map = await readFile(`${path}.map`, 'utf8').then(
        (text) => new SourceMap(JSON.parse(text)),
        () => undefined,
      );
      maps.set(url, map);
    }
    const entry = maps.get(url)?.findEntry(frame.lineNumber, frame.columnNumber) as
      | { originalSource?: string }
      | undefined;
    return entry?.originalSource ? join(dirname(fileURLToPath(url)), entry.originalSource) : url;
  };
}

/**
 * The .cpuprofile of `dir`'s main thread, summarised per step (the windows of one step, its slices, taken
 * together): µs per request by bucket, and the busiest functions.
 */
export async function summariseProfile(
  dir: string,
  windows: StepWindow[],
): Promise<{ step: string; perRequestUs: Record<Bucket | 'total', number>; top: string[] }[]> {
  // One profile per thread (tsx's loader runs in a worker, mostly idle): the main thread's has the most functions.
  const profiles = await Promise.all(
    (await readdir(dir))
      .filter((f) => f.endsWith('.cpuprofile'))
      .map(async (f) => JSON.parse(await readFile(join(dir, f), 'utf8')) as Profile),
  );
  const profile = profiles.sort((a, b) => b.nodes.length - a.nodes.length)[0]!;
  const resolve = sourceResolver();
  const bucketById = new Map<number, Bucket | 'idle'>();
  const nameById = new Map<number, string>();
  for (const node of profile.nodes) {
    const name = node.callFrame.functionName;
    const source = await resolve(node.callFrame);
    nameById.set(node.id, `${name || '(anonymous)'} ${source.replace(/^.*\/(node_modules|src|test\/bench)\//, '$1/')}`);
    if (name === '(idle)') bucketById.set(node.id, 'idle');
    else if (name === '(garbage collector)' || name === '(program)') bucketById.set(node.id, 'node core+GC');
    else bucketById.set(node.id, bucketOf(source));
  }
  const steps = [...new Set(windows.map((w) => w.step))];
  const counted = steps.map(() => Object.fromEntries(BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>);
  const byFunction = steps.map(() => new Map<string, number>());
  let at = 0;
  for (const [k, id] of profile.samples.entries()) {
    at += profile.timeDeltas[k]!;
    const bucket = bucketById.get(id);
    if (bucket === undefined || bucket === 'idle') continue;
    const ms = at / 1000;
    const w = windows.find((x) => ms >= x.fromMs && ms < x.toMs);
    if (!w) continue;
    const s = steps.indexOf(w.step);
    counted[s]![bucket]++;
    const name = nameById.get(id)!;
    byFunction[s]!.set(name, (byFunction[s]!.get(name) ?? 0) + 1);
  }
  return steps.map((step, k) => {
    const mine = windows.filter((w) => w.step === step);
    const cpuUs = mine.reduce((sum, w) => sum + w.cpuUs, 0) / mine.reduce((sum, w) => sum + w.requests, 0);
    const samples = BUCKETS.reduce((sum, b) => sum + counted[k]![b], 0) || 1;
    const perRequestUs = Object.fromEntries(
      BUCKETS.map((b) => [b, Math.round((counted[k]![b] / samples) * cpuUs)]),
    ) as Record<Bucket | 'total', number>;
    perRequestUs.total = Math.round(cpuUs);
    const top = [...byFunction[k]!]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([name, n]) => `${((n / samples) * 100).toFixed(1)}% ${name}`);
    return { step, perRequestUs, top };
  });
}

/** `summariseProfile`'s figures printed: per step, µs per `unit` by bucket, and the busiest functions. */
export async function printProfile(dir: string, windows: StepWindow[], unit: string): Promise<void> {
  for (const summary of await summariseProfile(dir, windows)) {
    console.log(`\n${summary.step}: the server's CPU profile (${dir}), µs per ${unit} by bucket`);
    console.log(`| ${BUCKETS.join(' | ')} | total |\n|${BUCKETS.map(() => '---|').join('')}---|`);
    console.log(`| ${BUCKETS.map((b) => summary.perRequestUs[b]).join(' | ')} | ${summary.perRequestUs.total} |`);
    console.log(`the busiest functions (self):\n  ${summary.top.join('\n  ')}`);
  }
}
