// The compiled server as operators run it (`npm start`: its own process, on PostgreSQL),
// driven over real HTTP from this process: keep-alive, one socket per concurrent install. For each
// step, requests per second and the CPU the server process spent per request (read from /proc), next
// to this client's own CPU per request. It tells what a request costs the server itself, HTTP parsing
// and sockets included, where the in-process bench measures the app with its client on the same thread.
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { createScratchDatabase } from '../support/scratch-database.js';
import { spawnService, TEST_KEK, type SpawnedService } from '../support/spawn-service.js';
import type { StepClient } from './bench-service.js';
import { BUCKETS, summariseProfile, type StepWindow } from './cpu-profile.js';
import { atConcurrency, createInstalls, indicesFor, LIFECYCLE, runStep, type Step, warmUp } from './lifecycle-steps.js';

/** Linux reports a process's CPU time in /proc in ticks of 1/100 s (USER_HZ). */
const TICK_MS = 10;

export async function serverCpuMs(pid: number): Promise<number> {
  // Fields after the command name: state is the 1st, utime the 12th, stime the 13th.
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** Requests over one keep-alive agent; the client address travels in X-Forwarded-For (TRUST_PROXY=1). */
export function httpClient(port: number, agent: http.Agent): StepClient {
  return {
    request: (path, init, address) =>
      new Promise((resolve, reject) => {
        const headers = { ...(init.headers as Record<string, string> | undefined), 'x-forwarded-for': address };
        const req = http.request(
          { host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers, agent },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const answerHeaders = new Headers();
              for (const [name, value] of Object.entries(res.headers))
                for (const v of [value ?? []].flat()) answerHeaders.append(name, v);
              resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers: answerHeaders }));
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(init.body as string | undefined);
      }),
  };
}

/** Ready once /api/v2/readyz answers 200; a server that exits first fails at once, with what it wrote to stderr. */
export async function waitReady(server: SpawnedService, port: number): Promise<void> {
  let exited: number | string | undefined;
  void server.exited.then((code) => (exited = code));
  for (let i = 0; i < 1200 && exited === undefined; i++) {
    const ready = await fetch(`http://127.0.0.1:${port}/api/v2/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    exited === undefined
      ? 'the server did not become ready in 120 s'
      : `the server exited (${exited}): ${server.stderr()}`,
  );
}

export async function benchHttpServer(
  adminUrl: string,
  { installs, warmUp: warmUpInstalls, concurrency }: { installs: number; warmUp: number; concurrency: number },
): Promise<void> {
  const scratch = await createScratchDatabase(adminUrl, 'slowdns_bench');
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  // What `npm start` runs: it builds dist/ first when it is stale, then serves in this same process. No
  // request log (LOG_LEVEL warn), so no `listening` line either: readiness is polled.
  // The bench's own OTEL_* variables go to the server: with an endpoint, it is measured with tracing on.
  const tracing = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[0].startsWith('OTEL_') && entry[1] !== undefined,
    ),
  );
  // BENCH_CPU_PROF=<dir>: the server runs under node --cpu-prof, idle for a moment between steps, and its
  // profile is summarised per step (µs of sampled self time per request, by where the code comes from).
  const profileDir = process.env.BENCH_CPU_PROF;
  const spawnedAt = performance.now();
  const server = spawnService(
    {
      DATABASE_URL: scratch.url,
      KEY_ENCRYPTION_KEY: TEST_KEK,
      PORT: String(port),
      TRUST_PROXY: '1',
      LOG_LEVEL: 'warn',
      ...tracing,
    },
    profileDir
      ? ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${profileDir}`, 'scripts/start.mjs']
      : undefined,
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const windows: StepWindow[] = [];
  try {
    await waitReady(server, port);
    const client = httpClient(port, agent);
    await warmUp(client, createInstalls(warmUpInstalls, 253), concurrency);
    const list = createInstalls(installs, 3);
    const traced =
      tracing.OTEL_EXPORTER_OTLP_ENDPOINT ?? tracing.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? tracing.OTEL_TRACES_EXPORTER;
    console.log(
      `\nthe compiled server over HTTP on PostgreSQL (${new URL(adminUrl).host}), concurrency ${concurrency}, ${installs} installs, tracing ${traced ? `to ${traced}` : 'off'}`,
    );
    console.log('| step | req/s | server CPU ms per request | client CPU ms per request |');
    console.log('|---|---|---|---|');
    for (const step of LIFECYCLE as Step[]) {
      const indices = indicesFor(step, installs);
      if (profileDir) await new Promise((r) => setTimeout(r, 600));
      const serverBefore = await serverCpuMs(server.process.pid!);
      const clientBefore = process.cpuUsage();
      const started = performance.now();
      await atConcurrency(indices, concurrency, (i) => runStep(client, step, list[i]!));
      const wall = performance.now() - started;
      const serverMs = (await serverCpuMs(server.process.pid!)) - serverBefore;
      windows.push({
        step,
        fromMs: started - spawnedAt - 250,
        toMs: started + wall - spawnedAt + 250,
        cpuUs: serverMs * 1000,
        requests: indices.length,
      });
      const clientUsed = process.cpuUsage(clientBefore);
      const per = (ms: number) => (ms / indices.length).toFixed(2);
      console.log(
        `| ${step} | ${Math.round((indices.length / wall) * 1000)} | ${per(serverMs)} | ${per((clientUsed.user + clientUsed.system) / 1000)} |`,
      );
    }
  } finally {
    agent.destroy();
    await server.stop();
    await scratch.drop();
  }
  if (profileDir && windows.length > 0) {
    console.log(
      `\nthe server's CPU profile: µs of CPU per request by bucket (the samples' shares of the CPU /proc counted) (${profileDir})`,
    );
    console.log(`| step | ${BUCKETS.join(' | ')} | total |`);
    console.log(`|---|${BUCKETS.map(() => '---|').join('')}---|`);
    await writeFile(`${profileDir}/windows.json`, JSON.stringify(windows));
    const summary = await summariseProfile(profileDir, windows);
    for (const { step, perRequestUs } of summary)
      console.log(`| ${step} | ${BUCKETS.map((b) => perRequestUs[b]).join(' | ')} | ${perRequestUs.total} |`);
    for (const { step, top } of summary) console.log(`\n${step}, the busiest functions (self):\n  ${top.join('\n  ')}`);
  }
}
