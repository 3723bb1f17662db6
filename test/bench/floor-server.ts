// The floor the service is measured against over HTTP (BENCH_ONLY=floor): a bare node:http server that
// sends the very statements the service sent for the same request (captured on the wire, replayed by
// node-postgres, the service's driver, or by PGlite called directly), signs one Ed25519 token on the steps
// that answer one, and answers JSON. No framework, no validation, no rate-limit arithmetic of its own.
// Run as its own process: FLOOR_UNITS names the captured statements (step → install index → units),
// DATABASE_URL the database (none: PGlite in memory); it logs {"msg":"listening","port":N} on PORT (0: any).
// FLOOR_MUSTS=1: the floor with the design's musts besides (floor-musts.ts), keyed by FLOOR_MUSTS_KEK when set.
// The install is read off X-Forwarded-For (the bench's installs are 10.run.(i>>8).(i&255)), as a server
// behind a proxy reads its client.
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { bareNodePostgres, barePglite, type BareClient } from './bare-replay.js';
import { openStartedDatabase } from './bench-service.js';
import { designMusts } from './floor-musts.js';
import { floorToken, SIGNED_STEPS } from './floor-token.js';
import type { Step } from './lifecycle-steps.js';
import type { ReplayUnit } from './wire-capture.js';

const PATHS: Record<string, Step> = {
  '/slowdns': 'page',
  '/api/v2/slowdns/code/issue': 'issue',
  '/api/v2/slowdns/install/precheck': 'precheck',
  '/api/v2/slowdns/install/activate': 'activate',
  '/api/v2/slowdns/install/confirm': 'confirm',
  '/api/v2/slowdns/install/release': 'release',
  '/api/v2/healthz': 'healthz',
};

const units = JSON.parse(await readFile(process.env.FLOOR_UNITS!, 'utf8')) as Record<Step, ReplayUnit[][]>;
const url = process.env.DATABASE_URL;
const kek = process.env.FLOOR_MUSTS_KEK ? Buffer.from(process.env.FLOOR_MUSTS_KEK, 'base64url') : undefined;
const musts = process.env.FLOOR_MUSTS ? designMusts(kek) : undefined;
const client: BareClient = url ? bareNodePostgres(url) : barePglite(await openStartedDatabase(undefined));

function installOf(forwardedFor: string | undefined): number {
  const [, , c, d] = (forwardedFor ?? '').split('.').map(Number);
  return ((c ?? 0) << 8) | (d ?? 0);
}

/** What the bench's installer reads off each answer (lifecycle-steps.ts), and the status it expects. */
function answer(step: Step, i: number): { status: number; data: Record<string, string> } {
  const token = SIGNED_STEPS.includes(step) ? floorToken(i) : '';
  // In the contract's shapes, which the floor with the design's musts checks when they come back.
  const activationId = `act_${i.toString(16).padStart(16, '0')}`;
  if (step === 'issue')
    return { status: 201, data: { install_code: `SDNS-SD-000000-000000-${String(i).padStart(6, '0')}` } };
  if (step === 'precheck') return { status: 200, data: { precheck_token: token } };
  if (step === 'activate') return { status: 200, data: { activation_id: activationId, install_token: token } };
  if (step === 'confirm') return { status: 200, data: { activation_id: activationId, receipt: token } };
  return { status: 200, data: { status: 'ok' } };
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    const step = PATHS[req.url ?? ''];
    try {
      if (req.url === '/api/v2/readyz') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"status":"ready"}}');
        return;
      }
      if (!step) {
        res.writeHead(404).end();
        return;
      }
      const body: unknown = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      const forwardedFor = req.headers['x-forwarded-for'] as string | undefined;
      const i = installOf(forwardedFor);
      await client.replay(units[step]?.[i] ?? []);
      const { status, data } = answer(step, i);
      musts?.(step, body, forwardedFor ?? '', data);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (step === 'page') headers['set-cookie'] = `slowdns_browser=b${i}; Path=/; HttpOnly; SameSite=Lax`;
      res.writeHead(status, headers).end(JSON.stringify({ data }));
    } catch (err) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err) }));
    }
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address() as { port: number };
  console.log(JSON.stringify({ msg: 'listening', port: address.port }));
});
// Exits whatever closing the database says, so that node --cpu-prof writes its profile.
process.on('SIGTERM', () =>
  server.close(() =>
    client
      .close()
      .catch((err: unknown) => console.error(err))
      .finally(() => process.exit(0)),
  ),
);
