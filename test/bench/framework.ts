// BENCH_ONLY=framework: what the framework costs a request, without the service's own work. Three servers, each
// in its own process started as `npm start` starts the service (its node options), driven over HTTP from this
// one at the same concurrency, slice by slice taking turns:
//   - bare `node:http`: the body read and parsed, a small JSON answer;
//   - bare Hono on @hono/node-server: the same two routes, nothing else;
//   - the compiled service on an in-memory database, `GET /api/v2/livez`: its app-wide middleware (request id,
//     client address, metrics, body limit, database gate) and router around an answer that reads nothing.
// Per side and route: requests per second and CPU per request (/proc), and the ratios to bare node:http, with the
// slices' lowest and highest. BENCH_REQUESTS per slice (default 10,000: /proc counts CPU in 10 ms ticks),
// BENCH_SLICES (default 6).
import http from 'node:http';
import { spawnService, type SpawnedService } from '../support/spawn-service.js';
import { serverCpuMs, waitReady } from './http-server.js';
import { atConcurrency } from './lifecycle-steps.js';
import { ratioSpread } from './measure.js';

/** An activate body's size and shape, as an installer sends it. */
const BODY = JSON.stringify({
  install_code: 'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N',
  precheck_token: `${'eyJhbGciOiJFZERTQSIsInR5cCI6InNsb3dkbnMtcHJlY2hlY2srand0In0'}.${'x'.repeat(200)}.${'s'.repeat(86)}`,
  hostname: 'vpn1.example.net',
  public_ip: '203.0.113.7',
  machine_id: '0123456789abcdef0123456789abcdef',
  ssh_fingerprint: `SHA256:${'A'.repeat(43)}`,
  requested_ref: 'main',
  installer_version: '2026.11.20.1',
});

/** The answer both bare servers give to the POST: an activate answer's size. */
const ANSWER = `{ data: { activation_id: 'act_0123456789abcdef', install_token: 't'.repeat(300), observed_ip: '203.0.113.7', machine_id: body.machine_id }, meta: { message: 'Install code activated.' } }`;

const NODE_HTTP = `import http from 'node:http';
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method === 'GET') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"status":"ok"}}');
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(${ANSWER}));
  });
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ msg: 'listening', port: server.address().port })));
process.on('SIGTERM', () => server.close(() => process.exit(0)));`;

const HONO = `import { serve } from '@hono/node-server'; import { Hono } from 'hono';
const app = new Hono();
app.get('/api/v2/livez', (c) => c.json({ data: { status: 'ok' } }));
app.post('/echo', async (c) => { const body = await c.req.json(); return c.json(${ANSWER}); });
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(JSON.stringify({ msg: 'listening', port: info.port })));
process.on('SIGTERM', () => server.close(() => process.exit(0)));`;

interface Route {
  name: string;
  method: 'GET' | 'POST';
  path: string;
}

const LIVEZ: Route = { name: 'GET livez', method: 'GET', path: '/api/v2/livez' };
const ECHO: Route = { name: 'POST activate-sized JSON', method: 'POST', path: '/echo' };

interface Side {
  name: string;
  server: SpawnedService;
  port: number;
  routes: Route[];
  agent: http.Agent;
  /** Per route: each slice's requests per second and CPU µs per request. */
  slices: Map<string, { rps: number; cpuUs: number }[]>;
}

function request(side: Side, route: Route): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: side.port,
        path: route.path,
        method: route.method,
        agent: side.agent,
        headers: route.method === 'POST' ? { 'content-type': 'application/json' } : {},
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`${route.path}: ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(route.method === 'POST' ? BODY : undefined);
  });
}

async function slice(side: Side, route: Route, requests: number, concurrency: number) {
  const pid = side.server.process.pid!;
  const cpuBefore = await serverCpuMs(pid);
  const started = performance.now();
  await atConcurrency(Array.from({ length: requests }), concurrency, () => request(side, route));
  const wallMs = performance.now() - started;
  const cpuMs = (await serverCpuMs(pid)) - cpuBefore;
  return { rps: (requests / wallMs) * 1000, cpuUs: (cpuMs * 1000) / requests };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export async function benchFramework({
  requests,
  slices,
  concurrency,
}: {
  requests: number;
  slices: number;
  concurrency: number;
}): Promise<void> {
  const moduleSide = (source: string) => spawnService({}, ['--input-type=module', '-e', source]);
  // The service at LOG_LEVEL=warn logs no `listening` line: it is given its port and polled until ready.
  const servicePort = 7950 + Math.floor(Math.random() * 40);
  const service = spawnService({ DATA_DIR: 'memory://', LOG_LEVEL: 'warn', PORT: String(servicePort) });
  const bareNodeHttp = moduleSide(NODE_HTTP);
  const bareHono = moduleSide(HONO);
  const started: [string, SpawnedService, Route[], () => Promise<number>][] = [
    ['bare node:http', bareNodeHttp, [LIVEZ, ECHO], () => bareNodeHttp.port],
    ['bare Hono on node-server', bareHono, [LIVEZ, ECHO], () => bareHono.port],
    [
      'the service (in-memory database)',
      service,
      [LIVEZ],
      () => waitReady(service, servicePort).then(() => servicePort),
    ],
  ];
  const sides: Side[] = [];
  try {
    for (const [name, server, routes, ready] of started) {
      const port = await ready();
      sides.push({
        name,
        server,
        port,
        routes,
        agent: new http.Agent({ keepAlive: true, maxSockets: concurrency }),
        slices: new Map(),
      });
    }
    // Warm-up, not measured: each side and route a slice.
    for (const side of sides) for (const route of side.routes) await slice(side, route, requests, concurrency);
    for (let k = 0; k < slices; k++)
      for (const j of sides.map((_, i) => (i + k) % sides.length)) {
        const side = sides[j]!;
        for (const route of side.routes) {
          const measured = await slice(side, route, requests, concurrency);
          side.slices.set(route.name, [...(side.slices.get(route.name) ?? []), measured]);
        }
      }
  } finally {
    for (const side of sides) side.agent.destroy();
    for (const [, server] of started) await server.stop();
  }
  console.log(
    `\nthe framework alone over HTTP: concurrency ${concurrency}, ${slices} slices of ${requests} requests a side and route, taking turns`,
  );
  console.log('| route | side | req/s | CPU µs per request | ÷ node:http req/s (slices) | ÷ node:http CPU (slices) |');
  console.log('|---|---|---|---|---|---|');
  const bare = sides[0]!;
  for (const route of [LIVEZ, ECHO])
    for (const side of sides.filter((s) => s.routes.includes(route))) {
      const mine = side.slices.get(route.name)!;
      const theirs = bare.slices.get(route.name)!;
      const rps = mine.map((s, k) => s.rps / theirs[k]!.rps);
      const cpu = mine.map((s, k) => s.cpuUs / theirs[k]!.cpuUs);
      console.log(
        `| ${route.name} | ${side.name} | ${Math.round(mean(mine.map((s) => s.rps)))} | ${Math.round(mean(mine.map((s) => s.cpuUs)))} | ${(mean(mine.map((s) => s.rps)) / mean(theirs.map((s) => s.rps))).toFixed(2)}${ratioSpread(rps)} | ${(mean(mine.map((s) => s.cpuUs)) / mean(theirs.map((s) => s.cpuUs))).toFixed(2)}${ratioSpread(cpu)} |`,
      );
    }
}
