// `npx tsx test/bench/tracing-collector.ts`: what a trace collector's state costs the requests. The
// compiled server (npm run build first) is started once per mode, in turns, and answers
// TRACING_BENCH_PRECHECKS prechecks (500 by default, 10 at a time, each from its own address and
// machine) over HTTP; printed: each run's wall time, and each mode's median against tracing off.
// Modes: off; on, to a collector that answers 200 (this process); to a refused port; to one that
// accepts and never answers. A benchmark, not a test: it prints numbers and asserts nothing.
import { randomBytes } from 'node:crypto';
import { INSTALLER_VERSION } from '../support/install-flow.js';
import { refusedEndpoint, startHungCollector, startOtlpReceiver } from '../support/otlp-receiver.js';
import { spawnService } from '../support/spawn-service.js';

const PRECHECKS = Number(process.env.TRACING_BENCH_PRECHECKS ?? 500);
const ROUNDS = Number(process.env.TRACING_BENCH_ROUNDS ?? 3);
const CONCURRENCY = 10;

async function prechecks(env: Record<string, string>): Promise<{ ms: number; statuses: Record<number, number> }> {
  const service = spawnService({ DATA_DIR: 'memory://', TRUST_PROXY: '1', ...env });
  try {
    const port = await service.port;
    await service.logged('ready');
    const page = await fetch(`http://127.0.0.1:${port}/slowdns`);
    const cookie = /slowdns_browser=[^;]+/.exec(page.headers.get('set-cookie') ?? '')![0];
    const issued = await fetch(`http://127.0.0.1:${port}/api/v2/slowdns/code/issue`, {
      method: 'POST',
      headers: { cookie, origin: 'http://localhost:8080' },
    });
    const installCode = ((await issued.json()) as { data: { install_code: string } }).data.install_code;
    const statuses: Record<number, number> = {};
    let next = 0;
    const one = async (n: number) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v2/slowdns/install/precheck`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
        },
        body: JSON.stringify({
          install_code: installCode,
          machine_id: randomBytes(16).toString('hex'),
          ssh_fingerprint: `SHA256:${randomBytes(32).toString('base64').slice(0, 43)}`,
          product: 'slowdns',
          installer_version: INSTALLER_VERSION,
        }),
      });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    };
    const worker = async () => {
      while (next < PRECHECKS) await one(next++);
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return { ms: performance.now() - started, statuses };
  } finally {
    await service.stop();
  }
}

const receiver = await startOtlpReceiver();
const hung = await startHungCollector();
const refused = await refusedEndpoint();
const modes: [string, Record<string, string>][] = [
  ['off', {}],
  ['collector answers 200', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }],
  ['collector refuses', { OTEL_EXPORTER_OTLP_ENDPOINT: refused }],
  ['collector hangs', { OTEL_EXPORTER_OTLP_ENDPOINT: hung.endpoint }],
];
const times = new Map<string, number[]>(modes.map(([name]) => [name, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, env] of modes) {
    const { ms, statuses } = await prechecks(env);
    times.get(name)!.push(ms);
    console.log(
      `round ${round} ${name.padEnd(22)} ${PRECHECKS} prechecks in ${ms.toFixed(0)} ms  statuses ${JSON.stringify(statuses)}`,
    );
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const off = median(times.get('off')!);
for (const [name, values] of times) {
  const ratios = values.map((v) => v / off);
  console.log(
    `${name.padEnd(22)} median ${median(values).toFixed(0)} ms  ratio to off ${(median(values) / off).toFixed(2)} (runs ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
  );
}
console.log(
  `spans received by the answering collector: ${receiver.spans.length}; connections the hung one accepted: ${hung.connections()}`,
);
await receiver.close();
await hung.close();
