// The server's CPU profile (node --cpu-prof) summarised per step: the sampled self time of each step's
// window, by where the code comes from, per request. The compiled server is bundled, so each frame is
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

/** A step's window in ms since the server process was spawned, and how many requests it answered. */
export interface StepWindow {
  step: string;
  fromMs: number;
  toMs: number;
  requests: number;
}

function bucketOf(source: string): Bucket {
  if (source === '' || source.startsWith('node:')) return 'node core+GC';
  if (/node_modules\/(hono|@hono)\//.test(source)) return 'routing/adapter';
  if (/node_modules\/zod\//.test(source)) return 'zod';
  if (/node_modules\/(pg|pg-[a-z]+|postgres-[a-z]+|drizzle-orm|@electric-sql)\//.test(source)) return 'driver';
  if (/\/src\/.*\.ts$/.test(source)) return 'service';
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

/** The newest .cpuprofile in `dir`, summarised per window: µs of sampled self time per request, by bucket. */
export async function summariseProfile(
  dir: string,
  windows: StepWindow[],
): Promise<{ step: string; perRequestUs: Record<Bucket | 'total', number> }[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.cpuprofile')).sort();
  const profile = JSON.parse(await readFile(join(dir, files.at(-1)!), 'utf8')) as Profile;
  const resolve = sourceResolver();
  const bucketById = new Map<number, Bucket | 'idle'>();
  for (const node of profile.nodes) {
    const name = node.callFrame.functionName;
    if (name === '(idle)') bucketById.set(node.id, 'idle');
    else if (name === '(garbage collector)' || name === '(program)') bucketById.set(node.id, 'node core+GC');
    else bucketById.set(node.id, bucketOf(await resolve(node.callFrame)));
  }
  const spent = windows.map(() => Object.fromEntries(BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>);
  let at = 0;
  for (const [k, id] of profile.samples.entries()) {
    const delta = profile.timeDeltas[k]!;
    at += delta;
    const bucket = bucketById.get(id);
    if (bucket === undefined || bucket === 'idle') continue;
    const ms = at / 1000;
    const w = windows.findIndex((x) => ms >= x.fromMs && ms < x.toMs);
    // A sample's time is the interval before it.
    if (w >= 0) spent[w]![bucket] += delta;
  }
  return windows.map((w, k) => {
    const perRequestUs = Object.fromEntries(BUCKETS.map((b) => [b, Math.round(spent[k]![b] / w.requests)])) as Record<
      Bucket | 'total',
      number
    >;
    perRequestUs.total = BUCKETS.reduce((sum, b) => sum + perRequestUs[b], 0);
    return { step: w.step, perRequestUs };
  });
}
