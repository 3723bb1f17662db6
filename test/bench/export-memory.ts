// `BENCH_ONLY=export npm run bench`: the compiled server on PostgreSQL exports BENCH_EXPORT_ROWS activations
// (default 10,000 and 100,000) as NDJSON over HTTP while its memory is sampled every 50 ms: resident set
// (/proc) and V8's used heap (its own /metrics). Nothing is asserted: it prints the server's memory before,
// at its highest during, and after each export.
import { readFile } from 'node:fs/promises';
import { fillFleet } from '../support/fleet-rows.js';
import { openExplainingPostgres } from './admin-search.js';
import { createScratchDatabase } from '../support/scratch-database.js';
import { spawnService, TEST_KEK } from '../support/spawn-service.js';

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef0123456789';
const MiB = 1024 * 1024;

async function rssBytes(pid: number): Promise<number> {
  const line = (await readFile(`/proc/${pid}/status`, 'utf8')).split('\n').find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) * 1024;
}

async function heapUsedBytes(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return Number(
    text
      .split('\n')
      .find((l) => l.startsWith('nodejs_heap_size_used_bytes '))!
      .split(' ')[1],
  );
}

export async function benchExportMemory(adminUrl: string, sizes: number[]): Promise<void> {
  const scratch = await createScratchDatabase(adminUrl, 'slowdns_bench');
  const metricsPort = 40_000 + Math.floor(Math.random() * 20_000);
  const server = spawnService({
    DATABASE_URL: scratch.url,
    KEY_ENCRYPTION_KEY: TEST_KEK,
    ADMIN_TOKEN,
    METRICS_PORT: String(metricsPort),
  });
  const port = await server.port;
  await server.logged('ready');
  // A pool of its own, without the service's statement timeout: filling takes longer than a request may.
  const database = await openExplainingPostgres(scratch.url);
  try {
    const pid = server.process.pid!;
    const now = new Date();
    await fillFleet(database.db, Math.max(...sizes), now);
    console.log(
      `\nNDJSON export of activations by the compiled server on PostgreSQL (${new URL(adminUrl).host}), memory sampled every 50 ms`,
    );
    console.log(
      '| rows | bytes | seconds | RSS before → highest → after (MiB) | heap used before → highest → after (MiB) |',
    );
    console.log('|---|---|---|---|---|');
    for (const rows of sizes) {
      const since = new Date(now.getTime() - rows * 1000).toISOString();
      const before = { rss: await rssBytes(pid), heap: await heapUsedBytes(metricsPort) };
      const highest = { ...before };
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          highest.rss = Math.max(highest.rss, await rssBytes(pid));
          highest.heap = Math.max(highest.heap, await heapUsedBytes(metricsPort));
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}/api/v2/admin/activations?since=${encodeURIComponent(since)}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'application/x-ndjson' },
      });
      let bytes = 0;
      let lines = 0;
      const reader = res.body!.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        bytes += read.value.length;
        for (const byte of read.value) if (byte === 10) lines += 1;
      }
      const seconds = (performance.now() - started) / 1000;
      sampling = false;
      await sampler;
      const after = { rss: await rssBytes(pid), heap: await heapUsedBytes(metricsPort) };
      const mib = (n: number) => (n / MiB).toFixed(0);
      console.log(
        `| ${lines} | ${bytes} | ${seconds.toFixed(1)} | ${mib(before.rss)} → ${mib(highest.rss)} → ${mib(after.rss)} | ${mib(before.heap)} → ${mib(highest.heap)} → ${mib(after.heap)} |`,
      );
    }
  } finally {
    await database.pool.end();
    await server.stop();
    await scratch.drop();
  }
}
