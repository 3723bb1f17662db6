// `BENCH_ONLY=export npm run bench`: the compiled server on PostgreSQL exports BENCH_EXPORT_ROWS activations
// (default 1,000,000; comma-separated for several, each the newest that many of one fill) as NDJSON over
// HTTP to a client that reads as fast as it can, while its memory is sampled: resident set every 50 ms
// (/proc), V8's heap and its external memory every 250 ms (its own /metrics). It prints, for each export,
// rows/s, the server's CPU per row (/proc), and its RSS at idle (after start and the fill, before any
// export), at its highest during the export (and that over idle: DESIGN §21's figure is ≤ 64 MB over idle
// at 50,000 rows/s or more), and after. BENCH_EXPORT_LISTS=activations,servers,install-codes exports those
// lists of the same fill in turn. BENCH_CPU_PROF=<dir>: the server runs under node --cpu-prof, and each
// export's window is summarised (µs per row by bucket, the busiest functions). Nothing is asserted.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fillFleet } from '../support/fleet-rows.js';
import { openExplainingPostgres } from './admin-search.js';
import { createScratchDatabase } from '../support/scratch-database.js';
import { spawnService, TEST_KEK } from '../support/spawn-service.js';
import { printProfile, type StepWindow } from './cpu-profile.js';
import { readExport } from './export-reader.js';

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef0123456789';
const MiB = 1024 * 1024;

async function rssBytes(pid: number): Promise<number> {
  const line = (await readFile(`/proc/${pid}/status`, 'utf8')).split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) * 1024;
}

/** The CPU seconds (user + system) the process has used so far. */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** V8's used heap and the memory its objects hold outside it (Buffers, ArrayBuffers), from the server's /metrics. */
async function heapBytes(metricsPort: number): Promise<{ heap: number; external: number }> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const gauge = (name: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(`${name} `))!
        .split(' ')[1],
    );
  return { heap: gauge('nodejs_heap_size_used_bytes'), external: gauge('nodejs_external_memory_bytes') };
}

export async function benchExportMemory(adminUrl: string, sizes: number[], lists: string[]): Promise<void> {
  const scratch = await createScratchDatabase(adminUrl, 'slowdns_bench');
  const metricsPort = 40_000 + Math.floor(Math.random() * 20_000);
  const profileDir = process.env.BENCH_CPU_PROF && join(process.env.BENCH_CPU_PROF, `export-${Date.now()}`);
  const spawnedAt = performance.now();
  const server = spawnService(
    { DATABASE_URL: scratch.url, KEY_ENCRYPTION_KEY: TEST_KEK, ADMIN_TOKEN, METRICS_PORT: String(metricsPort) },
    profileDir
      ? ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${profileDir}`, 'scripts/start.mjs']
      : undefined,
  );
  const windows: StepWindow[] = [];
  const port = await server.port;
  await server.logged('ready');
  // A pool of its own, without the service's statement timeout: filling takes longer than a request may.
  const database = await openExplainingPostgres(scratch.url);
  try {
    const pid = server.process.pid!;
    const now = new Date();
    await fillFleet(database.db, Math.max(...sizes), now);
    // The fill wrote ~2 GB of WAL: its checkpoint done now, not writing back pages while the export is measured.
    await database.pool.query('checkpoint');
    await new Promise((r) => setTimeout(r, 2000));
    const idle = { rss: await rssBytes(pid), ...(await heapBytes(metricsPort)) };
    const mib = (n: number) => (n / MiB).toFixed(0);
    console.log(
      `\nNDJSON exports by the compiled server on PostgreSQL (${new URL(adminUrl).host}); idle: RSS ${mib(idle.rss)} MiB, V8 heap used ${mib(idle.heap)} MiB, external ${mib(idle.external)} MiB`,
    );
    console.log(
      '| list | rows | MB | seconds | rows/s | server CPU µs/row | RSS highest (over idle) → after, MiB | heap used highest → after, MiB | external highest, MiB |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const list of lists)
      for (const rows of sizes) {
        const since = new Date(now.getTime() - rows * 1000).toISOString();
        const highest = { ...idle };
        let sampling = true;
        const sampler = (async () => {
          for (let i = 0; sampling; i++) {
            highest.rss = Math.max(highest.rss, await rssBytes(pid));
            if (i % 5 === 0) {
              const { heap, external } = await heapBytes(metricsPort);
              highest.heap = Math.max(highest.heap, heap);
              highest.external = Math.max(highest.external, external);
            }
            await new Promise((r) => setTimeout(r, 50));
          }
        })();
        const cpuBefore = await cpuSeconds(pid);
        const started = performance.now();
        const { lines, bytes, seconds } = await readExport(
          `http://127.0.0.1:${port}/api/v2/admin/${list}?since=${encodeURIComponent(since)}`,
          { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'application/x-ndjson' },
        );
        const cpu = (await cpuSeconds(pid)) - cpuBefore;
        const fromMs = started - spawnedAt;
        windows.push({
          step: `${list} (${rows})`,
          fromMs,
          toMs: fromMs + seconds * 1000,
          cpuUs: cpu * 1e6,
          requests: lines,
        });
        sampling = false;
        await sampler;
        const after = { rss: await rssBytes(pid), ...(await heapBytes(metricsPort)) };
        console.log(
          `| ${list} | ${lines} | ${(bytes / 1e6).toFixed(0)} | ${seconds.toFixed(1)} | ${Math.round(lines / seconds)} | ${((cpu * 1e6) / lines).toFixed(1)} | ${mib(highest.rss)} (+${mib(highest.rss - idle.rss)}) → ${mib(after.rss)} | ${mib(highest.heap)} → ${mib(after.heap)} | ${mib(highest.external)} |`,
        );
      }
  } finally {
    await database.pool.end();
    await server.stop();
    await scratch.drop();
  }
  if (profileDir) await printProfile(profileDir, windows, 'row');
}
