import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTALLER_VERSION, machine } from '../support/install-flow.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { spawnService, TEST_KEK, type SpawnedService } from '../support/spawn-service.js';
import { startReceiver } from '../webhooks/receiver.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';

// The real process, as `npm start` runs it, sending its spans to a collector of the test's own. No time
// is asserted: the spans are waited for.
const SPAWN_TIMEOUT_MS = 180_000;
const adminUrl = process.env.DATABASE_URL;
const ORIGIN = 'http://localhost:8080';

const SERVER = 2;
const CLIENT = 3;

/** The database of one spawned server: a scratch PostgreSQL database when the suite runs on one, else memory. */
async function databaseEnv(): Promise<{ env: Record<string, string>; scratch?: ScratchDatabase }> {
  if (!adminUrl) return { env: { DATA_DIR: 'memory://' } };
  const scratch = await createScratchDatabase(adminUrl, 'slowdns_tracing');
  return { env: { DATABASE_URL: scratch.url, KEY_ENCRYPTION_KEY: TEST_KEK }, scratch };
}

/** A code issued over HTTP as the page does it. */
async function issueCode(port: number): Promise<string> {
  const page = await fetch(`http://127.0.0.1:${port}/slowdns`);
  const cookie = /slowdns_browser=[^;]+/.exec(page.headers.get('set-cookie') ?? '')![0];
  const issued = await fetch(`http://127.0.0.1:${port}/api/v2/slowdns/code/issue`, {
    method: 'POST',
    headers: { cookie, origin: ORIGIN },
  });
  expect(issued.status).toBe(201);
  return ((await issued.json()) as { data: { install_code: string } }).data.install_code;
}

function precheck(port: number, installCode: string, headers: Record<string, string> = {}) {
  return fetch(`http://127.0.0.1:${port}/api/v2/slowdns/install/precheck`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      install_code: installCode,
      ...machine,
      product: 'slowdns',
      installer_version: INSTALLER_VERSION,
    }),
  });
}

const logLines = (service: SpawnedService) =>
  service.stdout.flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });

describe.each(['http/protobuf', 'http/json'] as const)('traces sent over OTLP %s', (protocol) => {
  let receiver: OtlpReceiver;
  let service: SpawnedService;
  let scratch: ScratchDatabase | undefined;
  let port: number;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const database = await databaseEnv();
    scratch = database.scratch;
    service = spawnService({
      ...database.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: 'slowdns-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    port = await service.port;
    await service.logged('ready');
  }, SPAWN_TIMEOUT_MS);
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    await scratch?.drop();
  });

  it("a precheck is a server span under the caller's traceparent, with its statement and its signature as children, and the answer names it in traceresponse", async () => {
    const installCode = await issueCode(port);
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const res = await precheck(port, installCode, { traceparent: `00-${traceId}-${callerSpanId}-01` });
    expect(res.status).toBe(200);
    const answered = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(res.headers.get('traceresponse') ?? '');
    expect(answered?.[1]).toBe(traceId);

    const server = await receiver.waitFor((s) => s.traceId === traceId && s.kind === SERVER);
    expect(server).toMatchObject({
      name: 'POST /api/v2/slowdns/install/precheck',
      spanId: answered![2],
      parentSpanId: callerSpanId,
      statusCode: 0,
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/api/v2/slowdns/install/precheck',
        'http.response.status_code': 200,
        'url.path': '/api/v2/slowdns/install/precheck',
        'url.scheme': 'http',
      },
      resource: { 'service.name': 'slowdns-under-test' },
    });
    const children = (test: (s: ReceivedSpan) => boolean) =>
      receiver.waitFor((s) => s.traceId === traceId && s.parentSpanId === server.spanId && test(s));
    const statement = await children((s) => s.kind === CLIENT);
    expect(statement.name).toBe(
      // Its first four writes (the summary names at most four): the identity replay row is written only by an
      // identity precheck, the events row (after these) only when the precheck starts to wait.
      'INSERT rate_limit_buckets INSERT identity_token_uses UPDATE install_codes INSERT install_code_prechecks',
    );
    expect(statement.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.query.summary': statement.name });
    expect(statement.attributes['db.query.text']).toMatch(
      /update install_codes set prechecked_at = \$\d+::timestamptz, precheck_machine_id = \$\d+/,
    );
    await children((s) => s.name === 'sign precheck token');

    // The whole export, as sent: the statement's text, never its values (the code, the machine).
    const sent = Buffer.concat(receiver.bodies.map((b) => b.body));
    expect(receiver.bodies.every((b) => b.path === '/v1/traces')).toBe(true);
    expect(receiver.bodies[0]!.contentType).toBe(
      protocol === 'http/json' ? 'application/json' : 'application/x-protobuf',
    );
    if (protocol === 'http/protobuf') expect(sent.includes(Buffer.from(traceId, 'hex'))).toBe(true);
    for (const secret of [installCode, installCode.replaceAll('-', ''), machine.machine_id, machine.ssh_fingerprint])
      expect(sent.includes(Buffer.from(secret))).toBe(false);
  });

  it("the request's JSON log line carries the trace and span of its server span", async () => {
    const traceId = randomBytes(16).toString('hex');
    const res = await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`, {
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    expect(res.status).toBe(200);
    const server = await receiver.waitFor((s) => s.traceId === traceId && s.kind === SERVER);
    const line = logLines(service).find((l) => l.msg === 'request' && l.trace_id === traceId);
    expect(line).toMatchObject({ route: '/.well-known/jwks.json', trace_id: traceId, span_id: server.spanId });
  });

  it('leaves the probes out', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v2/livez`);
    expect(res.status).toBe(200);
    expect(res.headers.get('traceresponse')).toBeNull();
  });
});

describe('traces at shutdown', { timeout: SPAWN_TIMEOUT_MS }, () => {
  it('the spans still queued are exported before the process exits', async () => {
    const receiver = await startOtlpReceiver();
    const database = await databaseEnv();
    // Nothing is exported on its own for ten minutes: only the shutdown's flush sends the span.
    const service = spawnService({
      ...database.env,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces`,
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    try {
      const port = await service.port;
      await service.logged('ready');
      const res = await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`);
      const traceId = res.headers.get('traceresponse')!.split('-')[1];
      expect(receiver.spans).toEqual([]);
      expect(await service.stop()).toBe(0);
      expect(receiver.spans.map((s) => [s.traceId, s.name])).toContainEqual([traceId, 'GET /.well-known/jwks.json']);
    } finally {
      await service.stop();
      await receiver.close();
      await database.scratch?.drop();
    }
  });
});

describe('traces of webhook deliveries', { timeout: SPAWN_TIMEOUT_MS }, () => {
  it('each attempt is a client span of a trace of its own, naming the host, never the URL', async () => {
    const otlp = await startOtlpReceiver();
    const hooks = await startReceiver();
    const database = await databaseEnv();
    const service = spawnService({
      ...database.env,
      ADMIN_TOKEN,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      const port = await service.port;
      await service.logged('ready');
      const url = `${hooks.url}/secret-path-token`;
      const created = await fetch(`http://127.0.0.1:${port}/api/v2/admin/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url, events: ['install_code.issued'] }),
      });
      expect(created.status).toBe(201);
      const webhookId = ((await created.json()) as { data: { webhook_id: string } }).data.webhook_id;
      await issueCode(port);

      const span = await otlp.waitFor((s) => s.name === 'webhook delivery');
      expect(span).toMatchObject({
        kind: CLIENT,
        parentSpanId: '',
        statusCode: 0,
        attributes: {
          'http.request.method': 'POST',
          'server.address': '127.0.0.1',
          'slowdns.webhook.endpoint_id': webhookId,
          'slowdns.webhook.attempt': 1,
          'http.response.status_code': 200,
        },
      });
      expect(hooks.received).toHaveLength(1);
      expect(hooks.received[0]!.headers['webhook-id']).toBe(span.attributes['slowdns.webhook.message_id']);
      expect(Buffer.concat(otlp.bodies.map((b) => b.body)).includes(Buffer.from('secret-path-token'))).toBe(false);
    } finally {
      await service.stop();
      await hooks.close();
      await otlp.close();
      await database.scratch?.drop();
    }
  });
});
