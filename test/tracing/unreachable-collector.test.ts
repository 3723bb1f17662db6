import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { INSTALLER_VERSION } from '../support/install-flow.js';
import { refusedEndpoint, startHungCollector } from '../support/otlp-receiver.js';
import { spawnService } from '../support/spawn-service.js';

const SPAWN_TIMEOUT_MS = 180_000;
const ORIGIN = 'http://localhost:8080';
const QUEUE = 20;
const PRECHECKS = 120;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The value of one series in a Prometheus text answer (0 when absent). */
const series = (text: string, name: string) =>
  Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);

describe.each([
  ['refuses connections', async () => ({ endpoint: await refusedEndpoint(), close: async () => {} })],
  ['accepts connections and never answers', startHungCollector],
] as const)('a collector that %s', (_, startCollector) => {
  it('never fails a request, keeps at most the queue, and counts what it drops', {
    timeout: SPAWN_TIMEOUT_MS,
  }, async () => {
    const collector = await startCollector();
    const metricsPort = await freePort();
    const service = spawnService({
      DATA_DIR: 'memory://',
      TRUST_PROXY: '1',
      METRICS_PORT: String(metricsPort),
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
      OTEL_BSP_MAX_QUEUE_SIZE: String(QUEUE),
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '5',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    try {
      const port = await service.port;
      await service.logged('ready');
      const page = await fetch(`http://127.0.0.1:${port}/slowdns`);
      const cookie = /slowdns_browser=[^;]+/.exec(page.headers.get('set-cookie') ?? '')![0];
      const issued = await fetch(`http://127.0.0.1:${port}/api/v2/slowdns/code/issue`, {
        method: 'POST',
        headers: { cookie, origin: ORIGIN },
      });
      const installCode = ((await issued.json()) as { data: { install_code: string } }).data.install_code;

      // Each precheck from its own address and machine: no rate limit refuses any of them.
      const answers: { status: number; traced: boolean }[] = [];
      for (let batch = 0; batch < PRECHECKS / 10; batch++) {
        answers.push(
          ...(await Promise.all(
            Array.from({ length: 10 }, async (_, i) => {
              const res = await fetch(`http://127.0.0.1:${port}/api/v2/slowdns/install/precheck`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${batch * 10 + i + 1}` },
                body: JSON.stringify({
                  install_code: installCode,
                  machine_id: randomBytes(16).toString('hex'),
                  ssh_fingerprint: `SHA256:${randomBytes(32).toString('base64').slice(0, 43)}`,
                  product: 'slowdns',
                  installer_version: INSTALLER_VERSION,
                }),
              });
              await res.arrayBuffer();
              return { status: res.status, traced: res.headers.has('traceresponse') };
            }),
          )),
        );
      }
      expect(answers).toEqual(Array.from({ length: PRECHECKS }, () => ({ status: 200, traced: true })));

      // Three spans a precheck (the request, its statement, its signature) into a queue of 20: most are dropped.
      const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      let metrics = await scrape();
      while (series(metrics, 'slowdns_trace_spans_dropped_total{reason="export_failed"}') === 0) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        metrics = await scrape();
      }
      expect(series(metrics, 'slowdns_trace_spans_dropped_total{reason="queue_full"}')).toBeGreaterThan(0);
      expect(series(metrics, 'slowdns_trace_spans_queued')).toBeLessThanOrEqual(QUEUE);
      expect(series(metrics, 'slowdns_trace_spans_exported_total')).toBe(0);
      // Said once, not at every failed export.
      const warnings = service.stdout.filter((line) => line.includes('"msg":"trace export failed'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('"level":"warn"');
    } finally {
      expect(await service.stop()).toBe(0);
      await collector.close();
    }
  });
});
