import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnService } from '../support/spawn-service.js';

const SPAWN_TIMEOUT_MS = 180_000;

/**
 * The OpenTelemetry packages whose code the server loaded, by name: the compiled bundle keeps a
 * `// node_modules/<package>/…` line before each module it holds, so the loaded files say it.
 */
function openTelemetryPackagesLoaded(listFile: string): string[] {
  const files = readFileSync(listFile, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'));
  const packages = new Set<string>();
  for (const file of files) {
    for (const [, name] of readFileSync(fileURLToPath(file), 'utf8').matchAll(
      /node_modules\/@opentelemetry\/([a-z-]+)\//g,
    ))
      packages.add(name!);
  }
  return [...packages].sort();
}

describe('tracing at start', { timeout: SPAWN_TIMEOUT_MS }, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'slowdns-tracing-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = async (name: string, env: Record<string, string>) => {
    const listFile = join(dir, `${name}.txt`);
    const service = spawnService({ DATA_DIR: 'memory://', LOADED_MODULES_FILE: listFile, ...env }, [
      '--import',
      './test/support/record-loaded-modules.mjs',
      'scripts/start.mjs',
    ]);
    const port = await service.port;
    await service.logged('ready');
    const answer = await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`);
    expect(answer.status).toBe(200);
    expect(await service.stop()).toBe(0);
    return { traceresponse: answer.headers.get('traceresponse'), packages: openTelemetryPackagesLoaded(listFile) };
  };

  it('off (no OTEL_* variable), the server loads no OpenTelemetry SDK, exporter or propagator, and answers no traceresponse', async () => {
    // @opentelemetry/api alone: prom-client loads it for its exemplars, with or without tracing.
    expect(await run('off', {})).toEqual({ traceresponse: null, packages: ['api'] });
    expect(
      await run('none', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }),
    ).toEqual({ traceresponse: null, packages: ['api'] });
  });

  it('on, it loads them (the chunk loaded only then)', async () => {
    const on = await run('on', { OTEL_TRACES_EXPORTER: 'console' });
    expect(on.traceresponse).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(on.packages).toEqual(
      expect.arrayContaining([
        'api',
        'context-async-hooks',
        'core',
        'exporter-trace-otlp-proto',
        'exporter-trace-otlp-http',
        'resources',
        'sdk-trace',
      ]),
    );
  });

  it('refuses OTLP over gRPC with one line naming the variable', async () => {
    const service = spawnService({
      DATA_DIR: 'memory://',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(await service.exited).toBe(1);
    expect(service.stderr()).toBe(
      'slowdns: invalid OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported, use http/protobuf or http/json\n',
    );
  });
});
