/**
 * `slowdns codes create|list --tag` (DESIGN §22) as an operator runs them: a process of its own against a
 * running service, the database checked behind it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { installCodes } from '../../src/db/schema.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { mintToken } from '../console/console-support.js';
import { startAnswerCuttingProxy } from '../support/answer-cutting-proxy.js';
import { serveOverHttp, type HttpServer } from '../support/browser.js';
import { activateRequest, precheckRequest, randomMachine } from '../support/install-flow.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function slowdns(args: string[], env: Record<string, string>): Promise<Run> {
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

const FLEET = [
  'codes',
  'create',
  '--uses',
  '50',
  '--ttl',
  '7d',
  '--tag',
  'env=prod',
  '--tag',
  'team=db',
  '--cidr',
  '203.0.113.0/24',
  '--hostname',
  '*.prod.example.com',
  '--description',
  'prod db fleet',
  '--reason',
  'CHG-1234',
];

describe('slowdns codes create and list --tag', { timeout: 120_000 }, () => {
  let t: TestApp;
  let service: HttpServer;
  let operator: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp({ ADMIN_TOKEN });
    service = await serveOverHttp(() => t.app);
    operator = { SLOWDNS_URL: service.origin, SLOWDNS_ADMIN_TOKEN: ADMIN_TOKEN };
  });
  beforeEach(async () => {
    await t.reset();
  });
  afterAll(async () => {
    await service?.close();
    await t?.close();
  });

  const fleetCodes = () => t.database.db.select().from(installCodes).where(isNotNull(installCodes.operator));

  it('create prints the code once, with its uses, expiry and tags, and the service keeps what it is bound to', async () => {
    const made = await slowdns(FLEET, operator);
    expect(made).toMatchObject({ code: 0, stderr: '' });
    expect(made.stdout).toMatch(
      /^ID +HINT +USES +EXPIRES_AT +TAGS\nic_[0-9a-f]{16} +SDNS-SD-…\w{6} +50 +\S+ +env=prod team=db\n/,
    );
    const code = /^(SDNS-SD-[A-Z0-9]{6}-[A-Z0-9]{6}-[A-Z0-9]{6})$/m.exec(made.stdout)?.[1];
    expect(code).toBeDefined();
    expect(made.stdout).toContain('Keep it now: it is not shown again.');
    expect(made.stdout).not.toContain('warning:');
    const [row] = await fleetCodes();
    expect(row).toMatchObject({
      uses: 50,
      operator: 'root',
      description: 'prod db fleet',
      tags: { env: 'prod', team: 'db' },
      allowedCidrs: ['203.0.113.0/24'],
      hostnamePattern: '*.prod.example.com',
    });
    expect(row!.expiresAt.getTime() - row!.issuedAt.getTime()).toBe(7 * 86_400_000);
  });

  it("create prints the service's warning for a reusable code bound to nothing", async () => {
    const made = await slowdns(['codes', 'create', '--uses', '5', '--ttl', '2h'], operator);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^warning: Anyone who reads this code enrolls up to 5 machines/m);
  });

  it('create whose answer is lost is sent again with the same Idempotency-Key: one code made, and it is the one printed', async () => {
    const proxy = await startAnswerCuttingProxy({ port: Number(new URL(service.origin).port) }, () => {});
    try {
      const made = await slowdns(['codes', 'create', '--uses', '5', '--json'], { ...operator, SLOWDNS_URL: proxy.url });
      expect(made).toMatchObject({ code: 0, stderr: '' });
      const printed = JSON.parse(made.stdout);
      const stored = await fleetCodes();
      expect(stored.map((code) => code.id)).toEqual([printed.install_code_id]);
      expect(printed.install_code).toMatch(/^SDNS-SD-/);
    } finally {
      await proxy.close();
    }
  });

  it('create --json prints the API answer, the code and the warnings included', async () => {
    const made = await slowdns([...FLEET, '--require-approval', '--json'], operator);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({
      install_code: expect.stringMatching(/^SDNS-SD-/),
      install_code_id: expect.stringMatching(/^ic_/),
      uses: 50,
      ttl_seconds: 604_800,
      tags: { env: 'prod', team: 'db' },
      require_approval: true,
      warnings: [],
    });
  });

  it('refuses a malformed flag as a usage error (exit 2) before anything is sent', async () => {
    for (const args of [
      ['--ttl', '7w'],
      ['--ttl', '45d'],
      ['--uses', 'many'],
      ['--tag', 'env'],
      ['--tag', 'env=prod', '--tag', 'env=staging'],
    ]) {
      const run = await slowdns(['codes', 'create', ...args], operator);
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(run.stderr).toMatch(/^slowdns: --(ttl|uses|tag) /);
    }
    expect(await fleetCodes()).toHaveLength(0);
    // Out of range, it names the flag and the range, not the API's field.
    expect((await slowdns(['codes', 'create', '--ttl', '45d'], operator)).stderr).toBe(
      'slowdns: --ttl must be 5m to 30d, not 45d\n',
    );
  });

  it('create --trust-file makes a code with no secret that lives up to a year, and prints its trust block', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'slowdns-trust-'));
    try {
      const trustFile = join(folder, 'trust.json');
      await writeFile(
        trustFile,
        JSON.stringify({
          issuer: 'https://token.actions.githubusercontent.com',
          audiences: ['https://activation.example.net'],
          subject_pattern: 'repo:example-org/dns-fleet:ref:refs/heads/main',
          claims: { repository_owner_id: '4242' },
          tags_from_claims: { repo: 'repository' },
        }),
      );
      const made = await slowdns(
        ['codes', 'create', '--uses', '20', '--ttl', '365d', '--trust-file', trustFile],
        operator,
      );
      expect(made).toMatchObject({ code: 0, stderr: '' });
      expect(made.stdout).toMatch(/^No secret: machines send ic_[0-9a-f]{16} with their identity token\.$/m);
      expect(made.stdout).toContain('Trust: tokens from https://token.actions.githubusercontent.com');
      expect(made.stdout).toContain('  repository_owner_id matches 4242');
      expect(made.stdout).not.toMatch(/SDNS-SD-[A-Z0-9]{6}-/);
      const [row] = await fleetCodes();
      expect(row!.trust).toMatchObject({ issuer: 'https://token.actions.githubusercontent.com' });
      expect(row!.expiresAt.getTime() - row!.issuedAt.getTime()).toBe(365 * 86_400_000);

      await writeFile(trustFile, '{"issuer": ');
      const broken = await slowdns(['codes', 'create', '--trust-file', trustFile], operator);
      expect(broken).toMatchObject({ code: 2, stdout: '' });
      expect(broken.stderr).toMatch(/^slowdns: --trust-file .*trust\.json is not JSON: /);
      const missing = await slowdns(['codes', 'create', '--trust-file', join(folder, 'none.json')], operator);
      expect(missing.stderr).toMatch(/^slowdns: cannot read --trust-file .*none\.json \(ENOENT\)/);
      expect(await fleetCodes()).toHaveLength(1);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('reads --tag env:walk as env=walk, the one tag syntax, for a new code and for a list', async () => {
    const made = await slowdns(
      ['codes', 'create', '--uses', '2', '--tag', 'env:walk', '--cidr', '198.51.100.0/24', '--json'],
      operator,
    );
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout).tags).toEqual({ env: 'walk' });
    for (const tag of ['env:walk', 'env=walk']) {
      const listed = await slowdns(['codes', 'list', '--tag', tag, '--json'], operator);
      expect(JSON.parse(listed.stdout).items.map((i: { tags: unknown }) => i.tags)).toEqual([{ env: 'walk' }]);
    }
  });

  it("says the service's refusal of a bad field in one line (400 validation_failed), and of a read token (403)", async () => {
    const zero = await slowdns(['codes', 'create', '--uses', '0'], operator);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toMatch(/^slowdns: 400 validation_failed: [^\n]*uses[^\n]*\n$/);
    const { token } = await mintToken(t, 'auditor', 'read');
    const read = await slowdns(['codes', 'create', '--uses', '2', '--cidr', '203.0.113.0/24'], {
      ...operator,
      SLOWDNS_ADMIN_TOKEN: token,
    });
    expect(read.code).toBe(1);
    expect(read.stderr).toMatch(/^slowdns: 403 admin_scope_insufficient: /);
    expect(await fleetCodes()).toHaveLength(0);
  });

  it('list --tag keeps the codes, activations and servers with every tag given, and shows uses and tags', async () => {
    const prod = JSON.parse((await slowdns([...FLEET, '--json'], operator)).stdout);
    await slowdns(['codes', 'create', '--uses', '2', '--tag', 'env=staging', '--cidr', '198.51.100.0/24'], operator);
    const onMachine = randomMachine();
    const precheck = await precheckRequest(t, prod.install_code, onMachine, '203.0.113.9');
    expect(precheck.status).toBe(200);
    const activated = await activateRequest(
      t,
      prod.install_code,
      (await precheck.json()).data.precheck_token,
      { ...onMachine, hostname: 'db1.prod.example.com' },
      '203.0.113.9',
    );
    expect(activated.status).toBe(200);

    const ids = (run: Run, key: string) => JSON.parse(run.stdout).items.map((i: Record<string, string>) => i[key]);
    const [codes, both, none, acts] = await Promise.all([
      slowdns(['codes', 'list', '--tag', 'env=prod', '--json'], operator),
      slowdns(['codes', 'list', '--tag', 'env=prod', '--tag', 'team=db', '--json'], operator),
      slowdns(['codes', 'list', '--tag', 'env=prod', '--tag', 'team=web', '--json'], operator),
      slowdns(['activations', 'list', '--tag', 'env=prod', '--json'], operator),
    ]);
    expect(ids(codes, 'install_code_id')).toEqual([prod.install_code_id]);
    expect(ids(both, 'install_code_id')).toEqual([prod.install_code_id]);
    expect(ids(none, 'install_code_id')).toEqual([]);
    expect(JSON.parse(acts.stdout).items).toEqual([
      expect.objectContaining({
        machine_binding: expect.objectContaining({ hostname: 'db1.prod.example.com' }),
        tags: { env: 'prod', team: 'db' },
      }),
    ]);
    const table = await slowdns(['codes', 'list', '--tag', 'env=prod'], operator);
    expect(table.stdout).toMatch(/^ID +HINT +STATUS +APPROVAL +USES +SPENT +HELD +TAGS +/);
    expect(table.stdout).toMatch(/ 50 +0 +1 +env=prod team=db /);
    expect(table.stdout).not.toContain(prod.install_code);
  });
});
