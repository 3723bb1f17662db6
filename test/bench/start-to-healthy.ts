// `npm start` to its first healthy answer, next to a bare Hono server started the same way, taking turns
// (the machine's load moves both alike): wall time from the spawn to the first 200 of /api/v2/healthz,
// and the resident memory of the whole process tree then (npm, and the server under it).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScratchDatabase } from '../support/scratch-database.js';
import { TEST_KEK } from '../support/spawn-service.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The least a Hono server on node-server does: one route, answered from memory. */
const BARE_HONO = `import { serve } from '@hono/node-server'; import { Hono } from 'hono';
const app = new Hono(); app.get('/api/v2/healthz', (c) => c.json({ data: { status: 'ok' } }));
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' });`;

function processTree(pid: number): number[] {
  let children: string[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {}
  return [pid, ...children.flatMap((child) => processTree(Number(child)))];
}

const rssKiB = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

async function startToHealthy(command: string[], env: Record<string, string>): Promise<{ ms: number; mib: number }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      PUBLIC_BASE_URL: 'http://localhost:8080',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  try {
    for (;;) {
      const healthy = await fetch(`http://127.0.0.1:${port}/api/v2/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (healthy) break;
      if (performance.now() - started > 120_000) throw new Error(`${command.join(' ')} was not healthy in 120 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const ms = performance.now() - started;
    const kib = processTree(child.pid!).reduce((sum, pid) => sum + rssKiB(pid), 0);
    return { ms, mib: kib / 1024 };
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

export async function benchStartToHealthy(adminUrl: string, rounds: number): Promise<void> {
  console.log(
    '\n| round | bare Hono ms | embedded (fresh DATA_DIR) ms / × bare / tree MiB | PostgreSQL (fresh database) ms / × bare / tree MiB |',
  );
  console.log('|---|---|---|---|');
  for (let round = 1; round <= rounds; round++) {
    const bare = await startToHealthy([process.execPath, '--input-type=module', '-e', BARE_HONO], {});
    const folder = await mkdtemp(join(tmpdir(), 'slowdns-start-'));
    const embedded = await startToHealthy(['npm', 'start'], { DATA_DIR: join(folder, 'data') }).finally(() =>
      rm(folder, { recursive: true, force: true }),
    );
    const scratch = await createScratchDatabase(adminUrl, 'slowdns_start');
    const postgres = await startToHealthy(['npm', 'start'], {
      DATABASE_URL: scratch.url,
      KEY_ENCRYPTION_KEY: TEST_KEK,
    }).finally(() => scratch.drop());
    const cell = (x: { ms: number; mib: number }) =>
      `${Math.round(x.ms)} / ${(x.ms / bare.ms).toFixed(1)} / ${Math.round(x.mib)}`;
    console.log(`| ${round} | ${Math.round(bare.ms)} | ${cell(embedded)} | ${cell(postgres)} |`);
  }
}
