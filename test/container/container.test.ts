// The container image as operators would build and run it (DESIGN §29, docs/deployment.md): built with
// Podman from the Dockerfile, then run on the embedded database with a volume (an install through
// activate.sh from the host, a restart that keeps it, a second container on the volume refused, a stop
// during a stream of installs), read-only, and as compose.yaml's service against PostgreSQL. Runs once per
// CI run, as a step of its own (.ci/run: CONTAINER_TEST=1, after scripts/container/make-base-image.sh);
// skipped otherwise and where podman is missing.
import { execFile, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, runInstall } from '../../clients/typescript/src/index.js';
import { INSTALLER_VERSION, randomMachine } from '../support/install-flow.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { TEST_KEK } from '../support/spawn-service.js';
import { composeService } from './compose-service.js';
import { freePort, healthy, memory, podman, podmanOk, runNames, sleep } from './podman.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const enabled = process.env.CONTAINER_TEST === '1' && spawnSync('sh', ['-c', 'command -v podman']).status === 0;
const run = promisify(execFile);

const IMAGE = 'localhost/slowdns:ci';
/** The machine's CA bundle: the build's npm ci reaches the registry through it (a secret mount only). */
const CA = process.env.NODE_EXTRA_CA_CERTS ?? '/etc/ssl/certs/ca-certificates.crt';
const ADMIN_TOKEN = `container-test-admin-token-${randomBytes(12).toString('hex')}`;
/** The app's layers on top of the base image, at most (issue 65). */
const APP_LAYERS_MAX_BYTES = 120_000_000;

/** Installs from one address (the host's): the development quotas, as for trying it locally. */
const SETTINGS = ['-e', 'RATE_LIMIT_PROFILE=development', '-e', 'RATE_LIMIT_PROFILE_FORCE=true'];

describe.skipIf(!enabled)('the container image (Podman)', () => {
  const names = runNames('slowdns-ci');
  const volume = names.volume('data');
  const first = names.container('embedded');
  const work = mkdtempSync(join(tmpdir(), 'slowdns-container-'));
  let port = 0;
  let base = '';
  let scratch: ScratchDatabase | undefined;
  const figures: string[] = [];

  beforeAll(async () => {
    const started = Date.now();
    // --format docker: Podman's default (OCI) has no HEALTHCHECK and drops it with a warning.
    await podmanOk(['build', '--format', 'docker', '--secret', `id=npm_ca,src=${CA}`, '--tag', IMAGE, root], 600_000);
    figures.push(`build: ${((Date.now() - started) / 1000).toFixed(0)} s`);
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
  }, 620_000);

  afterAll(async () => {
    console.log(`container figures:\n  ${figures.join('\n  ')}`);
    await names.removeAll();
    await scratch?.drop();
    rmSync(work, { recursive: true, force: true });
  }, 120_000);

  /** Starts the image (detached) with the embedded database on `volume`, published on 127.0.0.1. */
  const startEmbedded = (name: string, extra: string[] = []) =>
    podman([
      'run',
      '--detach',
      '--name',
      name,
      '--stop-timeout',
      '15',
      '--publish',
      `127.0.0.1:${port}:8080`,
      '--volume',
      `${volume}:/data`,
      '--env',
      `ADMIN_TOKEN=${ADMIN_TOKEN}`,
      '--env',
      `PUBLIC_BASE_URL=${base}`,
      ...SETTINGS,
      ...extra,
      IMAGE,
    ]);

  /** A code from a new browser session, over HTTP as the page gets one. */
  async function issueCode(at = base): Promise<string> {
    const page = await fetch(`${at}/slowdns`);
    const cookie = /slowdns_browser=[^;]+/.exec(page.headers.get('set-cookie') ?? '')?.[0] ?? '';
    const res = await fetch(`${at}/api/v2/slowdns/code/issue`, {
      method: 'POST',
      headers: { cookie, origin: at, 'sec-fetch-site': 'same-origin' },
    });
    if (res.status !== 201) throw new Error(`issue answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { data: { install_code: string } }).data.install_code;
  }

  /** The activation's status, from the admin API. */
  async function activationStatus(id: string, at = base): Promise<string> {
    const res = await fetch(`${at}/api/v2/admin/activations/${id}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    return res.ok ? ((await res.json()) as { data: { status: string } }).data.status : `answered ${res.status}`;
  }

  it('holds the compiled server and its production dependencies only, run by uid 10001, with no dev dependency, test, .git or the build secret', async () => {
    const size = async (image: string) => Number(await podmanOk(['image', 'inspect', image, '--format', '{{.Size}}']));
    const config = await podmanOk([
      'image',
      'inspect',
      IMAGE,
      '--format',
      '{{.Config.User}} {{json .Config.Healthcheck.Test}}',
    ]);
    expect(config).toMatch(/^10001:10001 \["CMD","node","-e",".*readyz.*"\]$/);
    // Every layer above the base's is the app's.
    const [imageBytes, baseBytes] = [await size(IMAGE), await size('node:22-bookworm-slim')];
    const appBytes = imageBytes - baseBytes;
    figures.push(
      `image: ${(imageBytes / 1e6).toFixed(1)} MB, of which the app's layers on the base ${(appBytes / 1e6).toFixed(1)} MB`,
    );
    expect(appBytes).toBeLessThanOrEqual(APP_LAYERS_MAX_BYTES);

    const caSize = statSync(CA).size;
    const caHash = createHash('sha256').update(readFileSync(CA)).digest('hex');
    const inside = await podmanOk([
      'run',
      '--rm',
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      'echo "uid $(id -u)"; echo "app $(ls -A /app | tr "\\n" " ")"; ' +
        'for p in typescript vitest esbuild tsx @scalar/api-reference @biomejs/biome; do [ -e "/app/node_modules/$p" ] && echo "present $p"; done; ' +
        `echo "ca copies $(find / -xdev -type f -size ${caSize}c -exec sha256sum {} + 2>/dev/null | grep -c ${caHash})"`,
    ]);
    expect(inside.split('\n')).toEqual([
      'uid 10001',
      'app dist node_modules package-lock.json package.json ',
      'ca copies 0',
    ]);
    const installed = JSON.parse(
      await podmanOk(['run', '--rm', '--entrypoint', 'cat', IMAGE, '/app/node_modules/.package-lock.json']),
    ) as { packages: Record<string, unknown> };
    // Every package the lockfile marks dev-only is absent.
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.keys(lock.packages).filter((key) => lock.packages[key]!.dev);
    expect(devOnly.filter((key) => key in installed.packages)).toEqual([]);
    figures.push(
      `packages: ${Object.keys(installed.packages).length} (none of the lockfile's ${devOnly.length} dev-only)`,
    );
  });

  it('npm audit --omit=dev inside the image finds nothing', async (context) => {
    const audit = await podman(
      [
        'run',
        '--rm',
        '--volume',
        `${CA}:/run/ca.pem:ro`,
        '--env',
        'NODE_EXTRA_CA_CERTS=/run/ca.pem',
        '--env',
        'npm_config_cache=/tmp/npm',
        '--entrypoint',
        'npm',
        IMAGE,
        'audit',
        '--omit=dev',
        '--json',
      ],
      120_000,
    );
    const report = JSON.parse(audit.stdout) as {
      metadata?: { vulnerabilities: Record<string, number> };
      message?: string;
    };
    // A registry mirror that serves GET only (CI's) answers the audit endpoint's POST 405: said, not passed.
    if (!report.metadata && /^405 /.test(report.message ?? '')) {
      figures.push(`npm audit --omit=dev: not run, the registry refuses its endpoint (${report.message})`);
      context.skip();
    }
    figures.push(`npm audit --omit=dev: ${JSON.stringify(report.metadata?.vulnerabilities)}`);
    expect(report.metadata?.vulnerabilities.total).toBe(0);
  }, 150_000);

  it('on the embedded database with a volume: healthy, an install through activate.sh from the host, a second container on the volume refused, a restart keeps the activation', async () => {
    const started = Date.now();
    const ran = await startEmbedded(first);
    expect(ran.code, ran.stderr).toBe(0);
    figures.push(`time to healthy (embedded, a new volume): ${await healthy(first, started)} ms`);
    figures.push(`memory, embedded, idle: ${await memory(first)}`);
    // The API reference's bundle comes from dist/ (Scalar's package is not in the image).
    const docs = await (await fetch(`${base}/docs`)).text();
    const bundle = /<script src="(\/docs\/scalar\.js\?v=[^"]+)" defer>/.exec(docs)?.[1];
    expect((await fetch(`${base}${bundle}`)).status).toBe(200);

    // As the README's command: the script from the service, checked against its SHA-256, run as root would.
    await run('curl', ['-fsSLo', join(work, 'activate.sh'), `${base}/slowdns/activate.sh`]);
    writeFileSync(join(work, 'activate.sh.sha256'), await (await fetch(`${base}/slowdns/activate.sh.sha256`)).text());
    await run('sha256sum', ['-c', 'activate.sh.sha256'], { cwd: work });
    writeFileSync(join(work, 'machine-id'), `${randomBytes(16).toString('hex')}\n`);
    await run('sh', [join(work, 'activate.sh'), 'run', '--', 'sh', '-c', 'true'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: work,
        SLOWDNS_URL: base,
        SLOWDNS_INSTALL_CODE: await issueCode(),
        SLOWDNS_STATE_FILE: join(work, 'state'),
        SLOWDNS_MACHINE_ID_FILE: join(work, 'machine-id'),
        SLOWDNS_SSH_FINGERPRINT: `SHA256:${randomBytes(32).toString('base64').replace(/=+$/, '')}`,
        SLOWDNS_HOSTNAME: 'container-test.example',
        SLOWDNS_PUBLIC_IP: '203.0.113.9',
      },
    });
    const activationId = /^activation_id=(.+)$/m.exec(readFileSync(join(work, 'state'), 'utf8'))![1]!;
    expect(await activationStatus(activationId)).toBe('confirmed');

    // A second container on the same volume: both run as pid 1, under different host names.
    const second = names.container('second');
    await podman(['run', '--name', second, '--volume', `${volume}:/data`, IMAGE], 60_000);
    const refused = await podman(['logs', second]);
    const holder = await podmanOk(['inspect', first, '--format', '{{.Config.Hostname}}']);
    expect(await podmanOk(['inspect', second, '--format', '{{.State.ExitCode}}'])).toBe('1');
    expect(refused.stderr).toMatch(
      `slowdns: DATA_DIR /data is in use by process 1 on ${holder} (lock file /data/slowdns.lock`,
    );
    expect(await activationStatus(activationId)).toBe('confirmed');

    await podmanOk(['stop', first], 30_000);
    expect(await podmanOk(['inspect', first, '--format', '{{.State.ExitCode}}'])).toBe('0');
    const restarted = Date.now();
    await podmanOk(['start', first]);
    figures.push(`time to healthy (embedded, restarted on its volume): ${await healthy(first, restarted)} ms`);
    expect(await activationStatus(activationId)).toBe('confirmed');
  }, 240_000);

  it('podman stop during a stream of installs: no answer 5xx while it stops, the container exits 0, and every confirmed install is confirmed after the restart', async () => {
    // When each request was sent: while serving, while `podman stop` runs (the drain), or from `podman
    // start` until healthy (the starting service answers 503 service_unavailable with Retry-After, as
    // designed, and the client retries it).
    type Phase = 'serving' | 'stopping' | 'starting';
    let phase = 'serving' as Phase;
    const answers: { phase: Phase; status: number; code?: string }[] = [];
    const client = createClient({
      baseUrl: base,
      fetch: async (request) => {
        const sentWhile = phase;
        const response = await fetch(request);
        const code =
          response.status >= 500
            ? ((await response.clone().json()) as { error?: { code?: string } }).error?.code
            : undefined;
        answers.push({ phase: sentWhile, status: response.status, code });
        return response;
      },
      retry: { maxRetries: 80, baseDelayMs: 200, maxDelayMs: 1000 },
    });
    const codes = await Promise.all(Array.from({ length: 48 }, () => issueCode()));
    const confirmed: string[] = [];
    const failed: unknown[] = [];
    const installer = async () => {
      for (let code = codes.pop(); code; code = codes.pop()) {
        const result = await runInstall({
          client,
          installCode: code,
          machine: randomMachine(),
          installerVersion: INSTALLER_VERSION,
          requestedRef: 'main',
          signals: [],
          confirmAddress: async () => ({ hostname: 'stream.example', public_ip: '203.0.113.10' }),
          install: async () => void (await sleep(300)),
        });
        if (result.outcome === 'confirmed') confirmed.push(result.activation.activation_id);
        else failed.push(result);
      }
    };
    let exitCode = '';
    const stopAndStart = async () => {
      await sleep(2500);
      phase = 'stopping';
      await podmanOk(['stop', first], 30_000);
      exitCode = await podmanOk(['inspect', first, '--format', '{{.State.ExitCode}}']);
      phase = 'starting';
      const started = Date.now();
      await podmanOk(['start', first]);
      await healthy(first, started);
      phase = 'serving';
    };
    try {
      await Promise.all([...Array.from({ length: 4 }, installer), stopAndStart()]);
      const after = await Promise.all(confirmed.map((id) => activationStatus(id)));
      const count = (of: (a: (typeof answers)[number]) => boolean) => answers.filter(of).length;
      figures.push(
        `stream: ${confirmed.length} installs across the stop; ${answers.length} answers, ` +
          `${count((a) => a.phase === 'stopping')} sent while stopping (5xx: ${count((a) => a.phase === 'stopping' && a.status >= 500)}), ` +
          `${count((a) => a.phase === 'starting' && a.status === 503)} answered 503 while starting (retried)`,
      );
      expect({
        failed,
        answered5xx: answers.filter(
          (a) => a.status >= 500 && !(a.phase === 'starting' && a.code === 'service_unavailable' && a.status === 503),
        ),
        exitCode,
        lost: after.filter((status) => status !== 'confirmed').length,
        all: confirmed.length,
      }).toEqual({ failed: [], answered5xx: [], exitCode: '0', lost: 0, all: 48 });
    } finally {
      await podman(['stop', first], 30_000);
    }
  }, 240_000);

  it('runs --read-only with a tmpfs /tmp (its volume the one place it writes)', async () => {
    const readOnly = names.container('read-only');
    const at = `http://127.0.0.1:${await freePort()}`;
    const started = Date.now();
    await podmanOk([
      'run',
      '--detach',
      '--name',
      readOnly,
      '--read-only',
      '--read-only-tmpfs=false',
      '--tmpfs',
      '/tmp',
      '--publish',
      `127.0.0.1:${new URL(at).port}:8080`,
      '--volume',
      `${names.volume('read-only')}:/data`,
      '--env',
      `PUBLIC_BASE_URL=${at}`,
      ...SETTINGS,
      IMAGE,
    ]);
    figures.push(`time to healthy (read-only, a new volume): ${await healthy(readOnly, started)} ms`);
    expect(await issueCode(at)).toMatch(/^SDNS-/);
    expect(await podmanOk(['exec', readOnly, 'sh', '-c', 'touch /app/x 2>&1; echo $?'])).toMatch(
      /Read-only file system\n1$/,
    );
    await podmanOk(['stop', readOnly], 30_000);
  }, 120_000);

  it("compose.yaml's service, with its settings, against PostgreSQL: healthy, an install confirmed", async () => {
    scratch = await createScratchDatabase(
      process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      'container',
    );
    const service = composeService(join(root, 'compose.yaml'), 'slowdns', {
      POSTGRES_PASSWORD: 'unused-here',
      KEY_ENCRYPTION_KEY: TEST_KEK,
      ADMIN_TOKEN,
    });
    // What the file promises: the database healthy first, the port on loopback, time for the drain.
    expect(service.dependsOn).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(service.ports).toEqual(['127.0.0.1:8080:8080']);
    expect(service.stopSeconds).toBeGreaterThanOrEqual(15);
    expect(service.environment.REQUIRE_KEY_ENCRYPTION).toBe('true');
    const pgPort = await freePort();
    const at = `http://127.0.0.1:${pgPort}`;
    // Its postgres service's image cannot be pulled here: the host's PostgreSQL instead, over the host's
    // network (loopback only).
    const env = {
      ...service.environment,
      DATABASE_URL: scratch.url,
      PUBLIC_BASE_URL: at,
      HOST: '127.0.0.1',
      PORT: String(pgPort),
    };
    const onPostgres = names.container('postgres');
    const started = Date.now();
    await podmanOk([
      'run',
      '--detach',
      '--name',
      onPostgres,
      '--network',
      'host',
      '--stop-timeout',
      String(service.stopSeconds),
      ...(service.readOnly ? ['--read-only', '--read-only-tmpfs=false'] : []),
      ...service.tmpfs.flatMap((path) => ['--tmpfs', path]),
      ...Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
      ...SETTINGS,
      IMAGE,
    ]);
    // The HEALTHCHECK asks port 8080: on the host's network the service listens where PORT says. Ready
    // when its own log says so (not another process that took the port) and readyz agrees.
    const logs = async () => {
      const ran = await podman(['logs', onPostgres]);
      return `${ran.stdout}\n${ran.stderr}`;
    };
    const ready = async () =>
      (await logs()).includes('"msg":"ready"') &&
      (await fetch(`${at}/api/v2/readyz`).catch(() => undefined))?.status === 200;
    while (!(await ready())) {
      if (Date.now() - started > 90_000) throw new Error(await logs());
      await sleep(250);
    }
    figures.push(`time to ready (PostgreSQL): ${Date.now() - started} ms; memory ${await memory(onPostgres)}`);
    const result = await runInstall({
      client: createClient({ baseUrl: at }),
      installCode: await issueCode(at).catch(async (err: Error) => {
        throw new Error(`${err.message}: ${await logs()}`);
      }),
      machine: randomMachine(),
      installerVersion: INSTALLER_VERSION,
      requestedRef: 'main',
      signals: [],
      confirmAddress: async () => ({ hostname: 'postgres.example', public_ip: '203.0.113.11' }),
      install: async () => {},
    });
    expect(result.outcome).toBe('confirmed');
    if (result.outcome === 'confirmed')
      expect(await activationStatus(result.activation.activation_id, at)).toBe('confirmed');
    await podmanOk(['stop', onPostgres], 30_000);
    expect(await podmanOk(['inspect', onPostgres, '--format', '{{.State.ExitCode}}'])).toBe('0');
  }, 180_000);
});
