/**
 * The cloud-init user-data of docs/installers.md ("Fleets: cloud-init, without a terminal"), checked and
 * run as cloud-init runs it: its write_files written with their permissions, its runcmd in a session of
 * its own with no terminal and stdin closed, against the real service, the machine's paths moved under a
 * folder of its own. What the page shows is what enrols a machine.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { spawnService, TEST_KEK, type SpawnedService } from '../support/spawn-service.js';
import { blocksOf, where } from './doc-blocks.js';

const PAGE = 'docs/installers.md';
const DOCUMENTED_URL = 'https://activation.example.net';
const CODE_PLACEHOLDER = 'SDNS-SD-…';
const SHA_PLACEHOLDER = 'SHA256_OF_ACTIVATE_SH';
const SERVICE_TIMEOUT_MS = 180_000;

interface UserData {
  write_files: { path: string; owner?: string; permissions: string; content: string }[];
  runcmd: string[][];
}

const block = blocksOf(PAGE).find((b) => b.language === 'yaml' && b.text.startsWith('#cloud-config\n'));

function userData(): UserData {
  expect(block, `${PAGE} shows a #cloud-config user-data`).toBeDefined();
  return parseYaml(block!.text) as UserData;
}

interface Boot {
  code: number | string;
  output: string;
  root: string;
}

/**
 * One machine's first boot, as cloud-init does it: write_files, then runcmd (`setsid`, stdin closed, no
 * terminal). `/run` and `/root` lie under the machine's own folder; `hostname -f` says `hostname`.
 */
async function boot(options: { serviceUrl: string; code: string; hostname: string }): Promise<Boot> {
  const root = mkdtempSync(join(tmpdir(), 'slowdns-cloud-init-'));
  const onMachine = (text: string) =>
    text.replaceAll(' /run/', ` ${root}/run/`).replaceAll(' /root/', ` ${root}/root/`);
  const sha = await (await fetch(`${options.serviceUrl}/slowdns/activate.sh.sha256`)).text();
  const data = userData();
  for (const file of data.write_files) {
    const path = join(root, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.content.replace(CODE_PLACEHOLDER, options.code));
    chmodSync(path, Number.parseInt(file.permissions, 8));
  }
  mkdirSync(join(root, 'root'), { recursive: true });
  mkdirSync(join(root, 'bin'));
  writeFileSync(join(root, 'root/install.sh'), `touch '${root}/installed'\n`);
  writeFileSync(join(root, 'bin/hostname'), `#!/bin/sh\necho ${options.hostname}\n`, { mode: 0o755 });
  writeFileSync(join(root, 'machine-id'), `${randomBytes(16).toString('hex')}\n`);
  let output = '';
  let code: number | string = 'not run';
  for (const command of data.runcmd) {
    const [program, ...args] = command.map((part) =>
      onMachine(part.replaceAll(DOCUMENTED_URL, options.serviceUrl).replace(SHA_PLACEHOLDER, sha.split(' ')[0]!)),
    );
    const child = spawn(program!, args, {
      // cloud-init's environment has no SLOWDNS_* of its own: what the machine needs comes from the user-data.
      env: {
        PATH: `${join(root, 'bin')}:${process.env.PATH ?? ''}`,
        HOME: join(root, 'root'),
        SLOWDNS_MACHINE_ID_FILE: join(root, 'machine-id'),
        SLOWDNS_SSH_FINGERPRINT: `SHA256:${randomBytes(32).toString('base64').replace(/=+$/, '')}`,
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    code = await new Promise<number | string>((resolve) =>
      child.on('close', (status, signal) => resolve(status ?? signal ?? 'unknown')),
    );
    if (code !== 0) break;
  }
  return { code, output, root };
}

describe('the cloud-init user-data of the installers guide', () => {
  const machines: string[] = [];
  let scratch: ScratchDatabase | undefined;
  let service: SpawnedService;
  let serviceUrl: string;
  const adminToken = randomBytes(32).toString('hex');

  beforeAll(async () => {
    const adminUrl = process.env.DATABASE_URL;
    scratch = adminUrl
      ? await createScratchDatabase(adminUrl, 'slowdns_cloud_init', inject('templateDatabase'))
      : undefined;
    service = spawnService({
      ADMIN_TOKEN: adminToken,
      ...(scratch ? { DATABASE_URL: scratch.url, KEY_ENCRYPTION_KEY: TEST_KEK } : { DATA_DIR: 'memory://' }),
    });
    serviceUrl = `http://127.0.0.1:${await service.port}`;
    await service.logged('ready');
  }, SERVICE_TIMEOUT_MS);

  afterAll(async () => {
    for (const root of machines) rmSync(root, { recursive: true, force: true });
    await service?.stop();
    await scratch?.drop();
  });

  it('writes the code to a file only its owner may read, and passes it to activate.sh by --code-file, never on a command line', () => {
    const data = userData();
    expect(data.write_files).toHaveLength(1);
    const [file] = data.write_files;
    expect(file, where(block!)).toMatchObject({ permissions: '0600', content: `${CODE_PLACEHOLDER}\n` });
    expect(data.runcmd).toHaveLength(1);
    const script = data.runcmd[0]!.join(' ');
    expect(script).toContain(`--code-file ${file!.path}`);
    expect(script).not.toContain('SDNS-SD-');
    expect(script).not.toContain('SLOWDNS_INSTALL_CODE');
  });

  it('enrols two machines booted with it on one code for two, with no terminal and no code in their logs, and the third exits 12', async () => {
    const code = await fleetCode(serviceUrl, adminToken);
    for (const n of [1, 2, 3]) {
      const machine = await boot({ serviceUrl, code, hostname: `db${n}.prod.example.com` });
      machines.push(machine.root);
      expect(machine.output).not.toContain(code);
      if (n === 3) {
        expect({ exit: machine.code, output: machine.output }).toEqual({
          exit: 12,
          output: expect.stringContaining('(install_code_exhausted)'),
        });
        continue;
      }
      expect(machine.code, machine.output).toBe(0);
      expect(existsSync(join(machine.root, 'installed'))).toBe(true);
      expect(existsSync(join(machine.root, 'run/slowdns/install-code'))).toBe(false);
      expect(machine.output).toContain('install confirmed');
      const state = readFileSync(join(machine.root, 'root/.slowdns-activation.state'), 'utf8');
      expect(state).toMatch(/^stage=confirmed$/m);
    }
  }, 120_000);
});

/** A code for two machines of the fleet, as `slowdns codes create --uses 2 --cidr … --hostname …` makes it. */
async function fleetCode(serviceUrl: string, adminToken: string): Promise<string> {
  const res = await fetch(`${serviceUrl}/api/v2/admin/install-codes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      uses: 2,
      ttl_seconds: 3600,
      tags: { env: 'prod' },
      allowed_cidrs: ['127.0.0.0/8'],
      hostname_pattern: '*.prod.example.com',
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { install_code: string } }).data.install_code;
}
