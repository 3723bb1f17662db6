// `npm start` to its first healthy answer, next to a bare Hono server, taking turns (the machine's load moves
// both alike): wall time from the spawn to the first 200 of /api/v2/healthz, and the resident memory of the
// whole process tree then (npm, and the server under it). The bare server is started with `node -e` (the
// first ratios, kept as they were) and, like for like with `npm start`'s node options, through `npm start` of
// a package of its own and as `node bare.mjs` beside the service's `node dist/src/main.js` (npm's own start
// is some 250–300 ms here).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScratchDatabase } from '../support/scratch-database.js';
import { npmStartNodeOptions, TEST_KEK } from '../support/spawn-service.js';

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

async function startToHealthy(
  command: string[],
  env: Record<string, string>,
  cwd = root,
): Promise<{ ms: number; mib: number }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd,
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

/**
 * The service's start on a fresh embedded database and on a fresh PostgreSQL database, by `command`, then its
 * restart on each (the same DATA_DIR, the migrated database): what an operator's restart waits for, where
 * the first start also makes the schema.
 */
async function serviceStarts(adminUrl: string, command: string[]) {
  const folder = await mkdtemp(join(tmpdir(), 'slowdns-start-'));
  const dataDir = { DATA_DIR: join(folder, 'data') };
  const [embedded, embeddedRestart] = await startTwice(command, dataDir).finally(() =>
    rm(folder, { recursive: true, force: true }),
  );
  const scratch = await createScratchDatabase(adminUrl, 'slowdns_start');
  const [postgres, postgresRestart] = await startTwice(command, {
    DATABASE_URL: scratch.url,
    KEY_ENCRYPTION_KEY: TEST_KEK,
  }).finally(() => scratch.drop());
  return { embedded, postgres, embeddedRestart, postgresRestart };
}

async function startTwice(command: string[], env: Record<string, string>) {
  const first = await startToHealthy(command, env);
  return [first, await startToHealthy(command, env)] as const;
}

export async function benchStartToHealthy(adminUrl: string, rounds: number): Promise<void> {
  // The bare server as a file in the repository (so that it finds hono), and a package of its own whose
  // `npm start` runs it as the service's does (`exec node …`).
  const bareFolder = await mkdtemp(join(tmpdir(), 'slowdns-bare-'));
  const bareFile = join(root, 'test', 'bench', `.bare-hono-${process.pid}.mjs`);
  await writeFile(bareFile, BARE_HONO);
  await writeFile(
    join(bareFolder, 'package.json'),
    JSON.stringify({
      name: 'bare-hono',
      private: true,
      scripts: { start: `exec node ${npmStartNodeOptions.join(' ')} ${bareFile}` },
    }),
  );
  const rows: string[] = [];
  const restarts: string[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      const bare = await startToHealthy([process.execPath, '--input-type=module', '-e', BARE_HONO], {});
      const service = await serviceStarts(adminUrl, ['npm', 'start']);
      const bareNpm = await startToHealthy(['npm', 'start'], {}, bareFolder);
      const bareNode = await startToHealthy([process.execPath, ...npmStartNodeOptions, bareFile], {});
      const serviceNode = await serviceStarts(adminUrl, [process.execPath, ...npmStartNodeOptions, 'dist/src/main.js']);
      const cell = (x: { ms: number; mib: number }, against: { ms: number }) =>
        `${Math.round(x.ms)} / ${(x.ms / against.ms).toFixed(1)} / ${Math.round(x.mib)}`;
      rows.push(
        `| ${round} | ${Math.round(bare.ms)} | ${cell(service.embedded, bare)} | ${cell(service.postgres, bare)} | ${Math.round(bareNpm.ms)} | ${(service.embedded.ms / bareNpm.ms).toFixed(1)} | ${(service.postgres.ms / bareNpm.ms).toFixed(1)} | ${Math.round(bareNode.ms)} | ${cell(serviceNode.embedded, bareNode)} | ${cell(serviceNode.postgres, bareNode)} |`,
      );
      restarts.push(
        `| ${round} | ${Math.round(bare.ms)} | ${cell(service.embeddedRestart, bare)} | ${cell(service.postgresRestart, bare)} | ${Math.round(bareNpm.ms)} | ${(service.embeddedRestart.ms / bareNpm.ms).toFixed(1)} | ${(service.postgresRestart.ms / bareNpm.ms).toFixed(1)} | ${Math.round(bareNode.ms)} | ${cell(serviceNode.embeddedRestart, bareNode)} | ${cell(serviceNode.postgresRestart, bareNode)} |`,
      );
    }
  } finally {
    await rm(bareFile, { force: true });
    await rm(bareFolder, { recursive: true, force: true });
  }
  console.log(
    '\n`npm start` next to a bare Hono started with `node -e` (the first three columns), then like for like: the same `npm start` ÷ the bare Hono through `npm start`, and `node dist/src/main.js` next to `node bare.mjs`',
  );
  console.log(
    '| round | bare Hono (node -e) ms | npm start, embedded (fresh DATA_DIR) ms / × bare / tree MiB | npm start, PostgreSQL (fresh database) ms / × bare / tree MiB | bare Hono (npm start) ms | embedded ÷ it | PostgreSQL ÷ it | bare Hono (node bare.mjs) ms | node dist/src/main.js, embedded ms / × / MiB | node dist/src/main.js, PostgreSQL ms / × / MiB |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
  console.log('\nThe same, restarted: the same DATA_DIR, the database its first start migrated');
  console.log(
    '| round | bare Hono (node -e) ms | npm start, embedded restart ms / × bare / tree MiB | npm start, PostgreSQL restart ms / × bare / tree MiB | bare Hono (npm start) ms | embedded restart ÷ it | PostgreSQL restart ÷ it | bare Hono (node bare.mjs) ms | node dist/src/main.js, embedded restart ms / × / MiB | node dist/src/main.js, PostgreSQL restart ms / × / MiB |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of restarts) console.log(row);
}
