import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { activations, installCodes, rateLimitOverrides, servers, signingKeys } from '../../src/db/schema.js';
import { serveOverHttp, type HttpServer } from '../support/browser.js';
import { slowdns, type SlowdnsRun as Run } from '../support/slowdns-in-process.js';
import { activatedInstall, issueCode } from '../support/install-flow.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { testPgliteSeed } from '../support/test-database.js';
import { registeredServer } from '../legacy/agent-requests.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';

/**
 * `slowdns …` as an operator runs it: a process of its own (the compiled command, bin/slowdns.js),
 * configured by its environment only. Kept for what is about the process: exit codes, one line on
 * stderr, the usage, the environment read.
 */
function slowdnsProcess(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/slowdns.js', ...args],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
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
    expect(page).toEqual({
      items: [expect.objectContaining({ install_code_id: code!.id, install_code_hint: code!.hint, status: 'issued' })],
      next_cursor: null,
    });

    const revoked = await slowdns(['codes', 'revoke', code!.id], operator);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(/^ID +HINT +STATUS/);
    expect(revoked.stdout).toContain(`${code!.id} is revoked.`);
    expect((await t.database.db.select().from(installCodes).where(eq(installCodes.id, code!.id)))[0]!.status).toBe(
      'revoked',
    );

    const released = await slowdns(
      ['activations', 'release', install.activationId, '--no-restore', '--json'],
      operator,
    );
    expect(released.code).toBe(0);
    expect(JSON.parse(released.stdout)).toEqual({
      activation_id: install.activationId,
      status: 'released',
      install_code_restored: false,
    });
    expect(
      (await t.database.db.select().from(activations).where(eq(activations.id, install.activationId)))[0]!.status,
    ).toBe('released');

    const serverRevoked = await slowdns(['servers', 'revoke', agent.serverId, '--url', service.origin], {
      SLOWDNS_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    expect(serverRevoked.code).toBe(0);
    expect((await t.database.db.select().from(servers).where(eq(servers.id, agent.serverId)))[0]!.status).toBe(
      'revoked',
    );

    const [events, table] = await Promise.all([
      slowdns(['events', 'list', '--type', 'activation.released', '--json'], operator),
      slowdns(['servers', 'list'], operator),
    ]);
    expect(JSON.parse(events.stdout).items).toEqual([
      expect.objectContaining({ type: 'activation.released', activation_id: install.activationId, actor: 'operator' }),
    ]);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID +HEALTH +HOSTNAME/);
    expect(table.stdout).toContain(agent.serverId);
  });

  it('limits: override, list, show and remove act on the service, with the operator and the reason on record', async () => {
    await t.reset();
    // `--expires 2d` counts from the command's clock, the real one: the service's must agree.
    t.clock.set(new Date());
    const set = await slowdns(
      [
        'limits',
        'override',
        'issue-ip-hour',
        '5',
        '--ip',
        '203.0.113.10',
        '--expires',
        '2d',
        '--reason',
        'Office NAT',
        '--json',
      ],
      operator,
    );
    expect(set).toMatchObject({ code: 0, stderr: '' });
    const override = JSON.parse(set.stdout);
    expect(override).toMatchObject({
      rate_limit_override_id: expect.stringMatching(/^rlo_[0-9a-f]{16}$/),
      subject: 'ip',
      value: '203.0.113.10',
      limit: 5,
      status: 'active',
      created_by: 'root',
      reason: 'Office NAT',
    });
    // 2d from the command's own clock, whole seconds.
    expect(new Date(override.expires_at).getTime() - Date.now()).toBeGreaterThan(2 * 86_400_000 - 120_000);
    const [stored] = await t.database.db.select().from(rateLimitOverrides);
    expect(stored).toMatchObject({
      id: override.rate_limit_override_id,
      quota: 5,
      reason: 'Office NAT',
      createdBy: 'root',
    });

    const [listed, shown, refused] = await Promise.all([
      slowdns(['limits', 'list', '--status', 'active'], operator),
      slowdns(['limits', 'show', '--ip', '203.0.113.10'], operator),
      slowdns(
        ['limits', 'override', 'issue-ip-hour', '5', '--cidr', '10.0.0.0/8', '--expires', '1h', '--reason', 'too wide'],
        operator,
      ),
    ]);
    expect(listed.stdout).toMatch(/^ID +STATUS +LIMIT_NAME +SUBJECT +VALUE +LIMIT/);
    expect(listed.stdout).toContain(
      `${override.rate_limit_override_id}  active  issue-ip-hour  ip       203.0.113.10  5 (default 3)`,
    );
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^LIMIT_NAME +USED +LIMIT +REMAINING +RESETS_AT +BECAUSE/);
    expect(shown.stdout).toMatch(
      new RegExp(
        `issue-ip-hour +0 +5 +5 .+override ${override.rate_limit_override_id} \\(ip 203\\.0\\.113\\.10, by root, until .+\\): Office NAT`,
      ),
    );
    expect(shown.stdout).toMatch(/issue-ip-day +0 +10 +10 .+default/);
    expect(shown.stdout).toContain('ip 203.0.113.10, counted as 203.0.113.10.');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^slowdns: 400 validation_failed: The request is not valid\. value: must be an IPv4 network from \/16 to \/32[^\n]*\n$/,
    );

    const removed = await slowdns(
      ['limits', 'remove', override.rate_limit_override_id, '--reason', 'NAT gone'],
      operator,
    );
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`${override.rate_limit_override_id} is removed.`);
    const events = JSON.parse((await slowdns(['events', 'list', '--json'], operator)).stdout).items;
    expect(events.map((e: Record<string, any>) => [e.type, e.actor, e.data.operator, e.data.reason])).toEqual([
      ['rate_limit_override.removed', 'operator', 'root', 'NAT gone'],
      ['rate_limit_override.created', 'operator', 'root', 'Office NAT'],
    ]);
    const usage = await slowdns(
      ['limits', 'show', '--ip', '203.0.113.10', '--machine', '4c4c4544003957108052b4c04f384833'],
      operator,
    );
    expect(usage).toMatchObject({ code: 2, stderr: 'slowdns: give exactly one of --ip, --machine\n' });
  });

  it('webhooks: add prints the secret once, list shows the health, pause, test, replay, rotate-secret, remove', async () => {
    const added = await slowdns(
      [
        'webhooks',
        'add',
        'https://hooks.example.com/slowdns',
        '--events',
        'activation.confirmed,server.revoked',
        '--json',
      ],
      operator,
    );
    expect(added).toMatchObject({ code: 0, stderr: '' });
    const endpoint = JSON.parse(added.stdout);
    expect(endpoint).toMatchObject({
      webhook_id: expect.stringMatching(/^wh_/),
      secret: expect.stringMatching(/^whsec_/),
      events: ['activation.confirmed', 'server.revoked'],
    });
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
    expect((await slowdns(['webhooks', 'replay', tested.delivery_id], operator)).stdout).toContain(
      `${tested.delivery_id} queued again.`,
    );
    const rotated = JSON.parse(
      (await slowdns(['webhooks', 'rotate-secret', endpoint.webhook_id, '--json'], operator)).stdout,
    );
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect((await slowdns(['webhooks', 'remove', endpoint.webhook_id], operator)).stdout).toContain(
      `${endpoint.webhook_id} removed.`,
    );
  });

  it('webhooks: a refused URL is one line on stderr', async () => {
    const refused = await slowdns(['webhooks', 'add', 'https://10.0.0.1/x'], operator);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^slowdns: 400 webhook_url_not_allowed: .*10\.0\.0\.1/);
  });

  it('tokens: create shows the token once, a read token lists but cannot act, a write token acts with its name and reason on record, revoke ends it', async () => {
    await t.reset();
    t.clock.set(new Date());
    const made = await slowdns(
      ['tokens', 'create', 'dashboard', '--scope', 'read', '--expires', '30d', '--json'],
      operator,
    );
    expect(made).toMatchObject({ code: 0, stderr: '' });
    const read = JSON.parse(made.stdout);
    expect(read).toMatchObject({
      operator_token_id: expect.stringMatching(/^opt_[0-9a-f]{16}$/),
      name: 'dashboard',
      scope: 'read',
      status: 'active',
      token: expect.stringMatching(/^sdo_/),
    });
    const table = await slowdns(['tokens', 'create', 'alice', '--scope', 'write'], operator);
    expect(table.code).toBe(0);
    const writeToken = /: (sdo_\S+)\n/.exec(table.stdout)![1]!;
    expect(table.stdout).toContain('Keep it now: it is not shown again.');

    await issueCode(t);
    const [code] = await t.database.db.select().from(installCodes);
    const asRead = { ...operator, SLOWDNS_ADMIN_TOKEN: read.token };
    const [listed, refused, mint] = await Promise.all([
      slowdns(['codes', 'list', '--json'], asRead),
      slowdns(['codes', 'revoke', code!.id], asRead),
      slowdns(['tokens', 'create', 'escalated', '--scope', 'write'], { ...operator, SLOWDNS_ADMIN_TOKEN: writeToken }),
    ]);
    expect(JSON.parse(listed.stdout).items).toHaveLength(1);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^slowdns: 403 admin_scope_insufficient: [^\n]+\n$/);
    expect(mint.stderr).toMatch(/^slowdns: 403 admin_scope_insufficient: [^\n]+\n$/);

    const revoked = await slowdns(['codes', 'revoke', code!.id, '--reason', 'Ticket 7'], {
      ...operator,
      SLOWDNS_ADMIN_TOKEN: writeToken,
    });
    expect(revoked.code).toBe(0);
    const events = JSON.parse(
      (await slowdns(['events', 'list', '--type', 'install_code.revoked', '--json'], asRead)).stdout,
    ).items;
    expect(events.map((e: Record<string, any>) => [e.actor, e.data.operator, e.data.reason])).toEqual([
      ['operator', 'alice', 'Ticket 7'],
    ]);

    const list = await slowdns(['tokens', 'list'], operator);
    expect(list.stdout).toMatch(/^ID +NAME +SCOPE +STATUS +CREATED_AT +EXPIRES_AT +LAST_USED_AT/);
    expect(list.stdout).not.toContain(read.token);
    expect((await slowdns(['tokens', 'revoke', read.operator_token_id], operator)).stdout).toContain(
      `${read.operator_token_id} (dashboard) is revoked.`,
    );
    expect((await slowdns(['codes', 'list'], asRead)).stderr).toMatch(/^slowdns: 401 admin_token_invalid: /);
  });

  it('show: one code, activation or server with its events, oldest first, the operator and reason in them', async () => {
    await t.reset();
    const agent = await registeredServer(t);
    const revoked = await slowdns(['servers', 'revoke', agent.serverId, '--reason', 'Decommissioned'], operator);
    expect(revoked.code).toBe(0);
    const [server, activation, code] = await Promise.all([
      slowdns(['servers', 'show', agent.serverId], operator),
      slowdns(['activations', 'show', agent.activationId, '--json'], operator),
      slowdns(['codes', 'show', 'ic_0000000000000000'], operator),
    ]);
    expect(server.code).toBe(0);
    expect(server.stdout).toMatch(/^ID +HEALTH +HOSTNAME/);
    const events = server.stdout.split('Events, oldest first:\n')[1]!.trim().split('\n');
    expect(events[0]).toMatch(/^ID +TYPE +OCCURRED_AT +ACTOR +REASON/);
    expect(events.slice(1).map((line) => line.split(/ {2,}/).slice(1, 5))).toEqual([
      ['server.registered', expect.any(String), 'installer', '-'],
      ['server.revoked', expect.any(String), 'operator root', 'Decommissioned'],
    ]);
    expect(JSON.parse(activation.stdout)).toMatchObject({
      activation_id: agent.activationId,
      server: { server_id: agent.serverId, status: 'revoked' },
    });
    expect(JSON.parse(activation.stdout).events.map((e: Record<string, unknown>) => e.type)).toEqual([
      'install_code.activated',
      'activation.created',
      'server.registered',
      'server.revoked',
    ]);
    expect(code).toMatchObject({ code: 1, stdout: '' });
    expect(code.stderr).toMatch(/^slowdns: 404 install_code_not_found: [^\n]+\n$/);
  });

  it('search: --q, --ip, --machine-id, --ssh-fingerprint on codes, activations and servers list', async () => {
    await t.reset();
    const agent = await registeredServer(t);
    const other = await activatedInstall(t);
    const [row] = await t.database.db.select().from(activations).where(eq(activations.id, agent.activationId));
    const { machineId, sshFingerprint, installCodeId } = row!;
    const ids = (run: Run, key: string) =>
      JSON.parse(run.stdout).items.map((item: Record<string, string>) => item[key]);
    const [byQ, byIp, byMachine, byFingerprint, codes] = await Promise.all([
      slowdns(['activations', 'list', '--q', 'VPN1.example', '--json'], operator),
      slowdns(['servers', 'list', '--ip', '203.0.113.0/24', '--json'], operator),
      slowdns(['activations', 'list', '--machine-id', machineId, '--json'], operator),
      slowdns(['servers', 'list', '--ssh-fingerprint', sshFingerprint, '--json'], operator),
      slowdns(['codes', 'list', '--machine-id', machineId, '--ip', '203.0.113.7', '--json'], operator),
    ]);
    expect(ids(byQ, 'activation_id').sort()).toEqual([agent.activationId, other.activationId].sort());
    expect(ids(byIp, 'server_id')).toEqual([agent.serverId]);
    expect(ids(byMachine, 'activation_id')).toEqual([agent.activationId]);
    expect(ids(byFingerprint, 'server_id')).toEqual([agent.serverId]);
    expect(ids(codes, 'install_code_id')).toEqual([installCodeId]);
  });

  it('search: a malformed network is one line on stderr', async () => {
    const refused = await slowdns(['activations', 'list', '--ip', '203.0.113.7/24'], operator);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(
      /^slowdns: 400 validation_failed: The request is not valid\. ip: has address bits set after its \/24: write the network as 203\.0\.113\.0\/24\.\n$/,
    );
  });

  it('list --all prints every matching item, as a table or with --format ndjson one per line', async () => {
    await t.reset();
    const agent = await registeredServer(t);
    const other = await activatedInstall(t);
    // --all: every matching item, read as the service streams it; --format ndjson prints one per line.
    const [exported, table] = await Promise.all([
      slowdns(['activations', 'list', '--all', '--format', 'ndjson', '--limit', '1'], operator),
      slowdns(['servers', 'list', '--all', '--q', 'vpn1'], operator),
    ]);
    expect(
      exported.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).activation_id)
        .sort(),
    ).toEqual([agent.activationId, other.activationId].sort());
    expect(
      table.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(/ +/)[0]),
    ).toEqual(['ID', agent.serverId]);
  });

  it('list refuses an unknown --format with exit 2', async () => {
    const badFormat = await slowdns(['codes', 'list', '--format', 'yaml'], operator);
    expect(badFormat).toMatchObject({ code: 2, stderr: 'slowdns: --format must be table, json or ndjson, not yaml\n' });
  });

  it('a wrong token, a refused action and an unreachable service: a non-zero exit and one line on stderr', async () => {
    // Independent runs, started together.
    const closed = await closedPort();
    const [wrong, unknown, noToken, unreachable] = await Promise.all([
      slowdnsProcess(['codes', 'list'], {
        ...operator,
        SLOWDNS_ADMIN_TOKEN: 'not-the-operator-token-0123456789abcdef',
      }),
      slowdnsProcess(['activations', 'release', 'act_0000000000000000'], operator),
      slowdnsProcess(['events', 'list'], { SLOWDNS_URL: service.origin }),
      slowdnsProcess(['servers', 'list', '--url', `http://127.0.0.1:${closed}`], operator),
    ]);
    expect(wrong).toMatchObject({ code: 1, stdout: '' });
    expect(wrong.stderr).toMatch(/^slowdns: 401 admin_token_invalid: [^\n]+\n$/);
    // It names the service that refused the token, and the setting the token comes from.
    expect(wrong.stderr).toContain(`(${service.origin}; the token is SLOWDNS_ADMIN_TOKEN)`);

    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^slowdns: 404 activation_not_found: [^\n]+\n$/);

    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/^slowdns: SLOWDNS_ADMIN_TOKEN is not set[^\n]*\n$/);

    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toBe(
      `slowdns: cannot reach the service at http://127.0.0.1:${closed}: ECONNREFUSED; is it running there? Name its address with --url or SLOWDNS_URL\n`,
    );
  });

  it("--version (and -V) prints the service's version from package.json, exit 0", async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-V'])
      expect(await slowdns([flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('--help on every level prints the usage', async () => {
    // Independent runs, started together.
    const helpArgs = [
      ['--help'],
      ['codes', '--help'],
      ['activations', 'release', '--help'],
      ['keys', 'rotate', '--help'],
      ['limits', 'override', '--help'],
    ];
    // The top level as a process, the others in this one.
    const helps = await Promise.all(helpArgs.map((args, i) => (i === 0 ? slowdnsProcess(args) : slowdns(args))));
    helps.forEach((help, i) => {
      expect(help!.code, helpArgs[i]!.join(' ')).toBe(0);
      expect(help!.stdout).toMatch(/^Usage: slowdns/);
    });
  });

  it('a usage error exits 2 with one line on stderr', async () => {
    const usage = await slowdnsProcess(['codes', 'list', '--colour']);
    expect(usage.code).toBe(2);
    expect(usage.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('keys: rotate, list and retire act on the database the environment names, its keys sealed under KEY_ENCRYPTION_KEY', {
    timeout: 180_000,
  }, async () => {
    const folder = await mkdtemp(join(tmpdir(), 'slowdns-keys-'));
    if (!t.database.url) {
      // The embedded folder starts as a fresh DATA_DIR of the compiled server does, from the migrated
      // seed: the command runs from src/, which has no seed, and would run initdb (seconds) instead.
      const seeded = await openDatabase({ dataDir: folder, pgliteSeed: await testPgliteSeed() });
      await seeded.close();
    }
    const generated = JSON.parse((await slowdns(['keys', 'generate', '--json'])).stdout);
    expect(generated.KEY_ENCRYPTION_KEY).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse(generated.SIGNING_KEYS).keys[0]).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
      d: expect.any(String),
    });
    // Its own database: PostgreSQL's scratch one, or an embedded folder no server holds.
    const env = {
      KEY_ENCRYPTION_KEY: generated.KEY_ENCRYPTION_KEY,
      ...(t.database.url ? { DATABASE_URL: t.database.url } : { DATA_DIR: folder }),
    };
    try {
      const first = JSON.parse((await slowdns(['keys', 'rotate', '--json'], env)).stdout);
      const second = JSON.parse((await slowdns(['keys', 'rotate', '--json'], env)).stdout);
      expect(second.keys).toEqual([
        expect.objectContaining({ kid: second.signing, state: 'signing', encrypted: true }),
        expect.objectContaining({
          kid: first.signing,
          state: 'verifying',
          encrypted: true,
          verify_until: expect.any(String),
        }),
      ]);
      const refused = await slowdns(['keys', 'retire', first.signing], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        new RegExp(`^slowdns: signing key ${first.signing} may still verify tokens until [^\\n]+\\n$`),
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('keys rotate never stores a private key in clear where keys are sealed or encryption is required: one line saying what to set, nothing stored', {
    timeout: 180_000,
  }, async () => {
    const folders: string[] = [];
    /** A database with no signing key: an embedded folder no server holds, or PostgreSQL's scratch one emptied. */
    const freshDatabase = async (): Promise<Record<string, string>> => {
      if (t.database.url) {
        await t.database.db.delete(signingKeys);
        return { DATABASE_URL: t.database.url };
      }
      const folder = await mkdtemp(join(tmpdir(), 'slowdns-keys-'));
      folders.push(folder);
      await (await openDatabase({ dataDir: folder, pgliteSeed: await testPgliteSeed() })).close();
      return { DATA_DIR: folder };
    };
    const listed = async (where: Record<string, string>) =>
      JSON.parse((await slowdns(['keys', 'list', '--json'], where)).stdout).keys as Record<string, unknown>[];
    const oneLineNaming = (run: Run) => {
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
      expect(run.stderr).toMatch(/^slowdns: [^\n]*set KEY_ENCRYPTION_KEY[^\n]*\n$/);
    };
    try {
      // Keys sealed under a KEK; then a shell without it, even one that says encryption is not required.
      const sealedIn = await freshDatabase();
      const kek = JSON.parse((await slowdns(['keys', 'generate', '--json'])).stdout).KEY_ENCRYPTION_KEY;
      expect((await slowdns(['keys', 'rotate'], { ...sealedIn, KEY_ENCRYPTION_KEY: kek })).code).toBe(0);
      const before = await listed(sealedIn);
      expect(before).toEqual([expect.objectContaining({ state: 'signing', encrypted: true })]);
      oneLineNaming(await slowdns(['keys', 'rotate'], { ...sealedIn, REQUIRE_KEY_ENCRYPTION: 'false' }));
      expect(await listed(sealedIn)).toEqual(before);

      // Encryption required and no KEK: refused before anything is stored, on PostgreSQL by default.
      const empty = await freshDatabase();
      oneLineNaming(await slowdns(['keys', 'rotate'], { ...empty, REQUIRE_KEY_ENCRYPTION: 'true' }));
      if (t.database.url) oneLineNaming(await slowdns(['keys', 'rotate'], empty));
      expect(await listed(empty)).toEqual([]);
    } finally {
      for (const folder of folders) await rm(folder, { recursive: true, force: true });
    }
  });
});
