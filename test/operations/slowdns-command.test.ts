import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { activations, installCodes, servers } from '../../src/db/schema.js';
import { serveOverHttp, type HttpServer } from '../support/browser.js';
import { activatedInstall, issueCode } from '../support/install-flow.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { testPgliteSeed } from '../support/test-database.js';
import { registeredServer } from '../legacy/agent-requests.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `slowdns …` as an operator runs it: a process of its own, configured by its environment only. */
function slowdns(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/slowdns.js', ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** A port nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the slowdns command against a running service', { timeout: 120_000 }, () => {
  let t: TestApp;
  let service: HttpServer;
  let operator: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp({ ADMIN_TOKEN });
    service = await serveOverHttp(() => t.app);
    operator = { SLOWDNS_URL: service.origin, SLOWDNS_ADMIN_TOKEN: ADMIN_TOKEN };
  });
  afterAll(async () => {
    await service?.close();
    await t?.close();
  });

  it('lists, revokes, releases: tables for people, --json for scripts, the database changed', async () => {
    await issueCode(t);
    const [code] = await t.database.db.select().from(installCodes);
    const install = await activatedInstall(t);
    const agent = await registeredServer(t);

    const listed = await slowdns(['codes', 'list', '--status', 'issued', '--json'], operator);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const page = JSON.parse(listed.stdout);
    expect(page).toEqual({ items: [expect.objectContaining({ install_code_id: code!.id, install_code_hint: code!.hint, status: 'issued' })], next_cursor: null });

    const revoked = await slowdns(['codes', 'revoke', code!.id], operator);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(/^ID +HINT +STATUS/);
    expect(revoked.stdout).toContain(`${code!.id} is revoked.`);
    expect((await t.database.db.select().from(installCodes).where(eq(installCodes.id, code!.id)))[0]!.status).toBe('revoked');

    const released = await slowdns(['activations', 'release', install.activationId, '--no-restore', '--json'], operator);
    expect(released.code).toBe(0);
    expect(JSON.parse(released.stdout)).toEqual({ activation_id: install.activationId, status: 'released', install_code_restored: false });
    expect((await t.database.db.select().from(activations).where(eq(activations.id, install.activationId)))[0]!.status).toBe('released');

    const serverRevoked = await slowdns(['servers', 'revoke', agent.serverId, '--url', service.origin], { SLOWDNS_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(serverRevoked.code).toBe(0);
    expect((await t.database.db.select().from(servers).where(eq(servers.id, agent.serverId)))[0]!.status).toBe('revoked');

    const [events, table] = await Promise.all([slowdns(['events', 'list', '--type', 'activation.released', '--json'], operator), slowdns(['servers', 'list'], operator)]);
    expect(JSON.parse(events.stdout).items).toEqual([expect.objectContaining({ type: 'activation.released', activation_id: install.activationId, actor: 'operator' })]);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID +HEALTH +HOSTNAME/);
    expect(table.stdout).toContain(agent.serverId);
  });

  it('webhooks: add prints the secret once, list shows the health, pause, rotate-secret, remove; a refused URL is one line', async () => {
    const added = await slowdns(['webhooks', 'add', 'https://hooks.example.com/slowdns', '--events', 'activation.confirmed,server.revoked', '--json'], operator);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    const endpoint = JSON.parse(added.stdout);
    expect(endpoint).toMatchObject({ webhook_id: expect.stringMatching(/^wh_/), secret: expect.stringMatching(/^whsec_/), events: ['activation.confirmed', 'server.revoked'] });
    const paused = await slowdns(['webhooks', 'pause', endpoint.webhook_id], operator);
    expect(paused.stdout).toContain(`${endpoint.webhook_id} is paused.`);
    const list = await slowdns(['webhooks', 'list'], operator);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID +HEALTH +HOST +EVENTS/);
    expect(list.stdout).toContain(`${endpoint.webhook_id}  paused  hooks.example.com`);
    expect(list.stdout).not.toContain(endpoint.secret);
    const tested = JSON.parse((await slowdns(['webhooks', 'test', endpoint.webhook_id, '--json'], operator)).stdout);
    expect(tested).toMatchObject({ type: 'webhook.test', status: 'pending' });
    const deliveries = await slowdns(['webhooks', 'deliveries', endpoint.webhook_id], operator);
    expect(deliveries.stdout).toMatch(new RegExp(`^${tested.delivery_id} +webhook\\.test +pending`, 'm'));
    expect((await slowdns(['webhooks', 'replay', tested.delivery_id], operator)).stdout).toContain(`${tested.delivery_id} queued again.`);
    const rotated = JSON.parse((await slowdns(['webhooks', 'rotate-secret', endpoint.webhook_id, '--json'], operator)).stdout);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect((await slowdns(['webhooks', 'remove', endpoint.webhook_id], operator)).stdout).toContain(`${endpoint.webhook_id} removed.`);
    const refused = await slowdns(['webhooks', 'add', 'https://10.0.0.1/x'], operator);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^slowdns: 400 webhook_url_not_allowed: .*10\.0\.0\.1/);
  });

  it('a wrong token, a refused action and an unreachable service: a non-zero exit and one line on stderr', async () => {
    // Independent runs, started together.
    const closed = await closedPort();
    const [wrong, unknown, noToken, unreachable] = await Promise.all([
      slowdns(['codes', 'list'], { ...operator, SLOWDNS_ADMIN_TOKEN: 'not-the-operator-token-0123456789abcdef' }),
      slowdns(['activations', 'release', 'act_0000000000000000'], operator),
      slowdns(['events', 'list'], { SLOWDNS_URL: service.origin }),
      slowdns(['servers', 'list', '--url', `http://127.0.0.1:${closed}`], operator),
    ]);
    expect(wrong).toMatchObject({ code: 1, stdout: '' });
    expect(wrong.stderr).toMatch(/^slowdns: 401 admin_token_invalid: [^\n]+\n$/);

    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^slowdns: 404 activation_not_found: [^\n]+\n$/);

    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/^slowdns: SLOWDNS_ADMIN_TOKEN is not set[^\n]*\n$/);

    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toBe(`slowdns: cannot reach the service at http://127.0.0.1:${closed}: ECONNREFUSED\n`);
  });

  it('--help on every level; a usage error exits 2', async () => {
    // Independent runs, started together.
    const helpArgs = [['--help'], ['codes', '--help'], ['activations', 'release', '--help'], ['keys', 'rotate', '--help']];
    const [usage, ...helps] = await Promise.all([slowdns(['codes', 'list', '--colour']), ...helpArgs.map((args) => slowdns(args))]);
    helps.forEach((help, i) => {
      expect(help!.code, helpArgs[i]!.join(' ')).toBe(0);
      expect(help!.stdout).toMatch(/^Usage: slowdns/);
    });
    expect(usage.code).toBe(2);
    expect(usage.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('keys: rotate and list act on the database the environment names, sealed under KEY_ENCRYPTION_KEY; retire refuses a key in use', { timeout: 180_000 }, async () => {
    const folder = await mkdtemp(join(tmpdir(), 'slowdns-keys-'));
    if (!t.database.url) {
      // The embedded folder starts as a fresh DATA_DIR of the compiled server does, from the migrated
      // seed: the command runs from src/, which has no seed, and would run initdb (seconds) instead.
      const seeded = await openDatabase({ dataDir: folder, pgliteSeed: await testPgliteSeed() });
      await seeded.close();
    }
    const generated = JSON.parse((await slowdns(['keys', 'generate', '--json'])).stdout);
    expect(generated.KEY_ENCRYPTION_KEY).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse(generated.SIGNING_KEYS).keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', d: expect.any(String) });
    // Its own database: PostgreSQL's scratch one, or an embedded folder no server holds.
    const env = { KEY_ENCRYPTION_KEY: generated.KEY_ENCRYPTION_KEY, ...(t.database.url ? { DATABASE_URL: t.database.url } : { DATA_DIR: folder }) };
    try {
      const first = JSON.parse((await slowdns(['keys', 'rotate', '--json'], env)).stdout);
      const second = JSON.parse((await slowdns(['keys', 'rotate', '--json'], env)).stdout);
      expect(second.keys).toEqual([
        expect.objectContaining({ kid: second.signing, state: 'signing', encrypted: true }),
        expect.objectContaining({ kid: first.signing, state: 'verifying', encrypted: true, verify_until: expect.any(String) }),
      ]);
      const refused = await slowdns(['keys', 'retire', first.signing], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(new RegExp(`^slowdns: signing key ${first.signing} may still verify tokens until [^\\n]+\\n$`));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
