/**
 * The TypeScript client's example as an installer author meets it (issue 59, point 4): a fresh folder outside
 * the repository, set up with the commands of docs/installers.md's install block as written (the client packed
 * with `npm pack`, the project made an ES module, the tarball and tsx installed), then the guide's installer
 * example run there with `npx tsx install.ts` against the real service. examples.test.ts runs the same example
 * inside the checkout, where the client's source and tsx are already at hand, so it cannot see a missing step.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnService, type SpawnedService } from '../support/spawn-service.js';
import { blocksOf, repoRoot, where, type DocBlock } from './doc-blocks.js';

const run = promisify(execFile);
const GUIDE = 'docs/installers.md';
const TIMEOUT_MS = 300_000;

const blocks = blocksOf(GUIDE);
const installBlock = blocks.find((b) => b.language === 'sh' && b.text.includes('npm pack')) as DocBlock;
const exampleBlock = blocks.find(
  (b) => b.language === 'ts' && b.text.includes('runInstall(') && b.text.includes("'@slowdns/activation-client'"),
) as DocBlock;

/**
 * The install block with the reader's places made the test's own: the pack destination (`/tmp`) and the
 * installer's folder (`/path/to/your-installer`). Its `npm ci` is the checkout's, already done for the tests.
 */
function installScript(block: DocBlock, packDir: string, projectDir: string): string {
  const lines = block.text
    .split('\n')
    .filter((line) => !/^npm ci\b/.test(line))
    .map((line) => line.replace(/\/tmp\b/g, packDir).replaceAll('/path/to/your-installer', projectDir));
  return `set -eu\n${lines.join('\n')}`;
}

describe(`the TypeScript client's example of ${GUIDE} in a fresh installer project`, { timeout: TIMEOUT_MS }, () => {
  let dir: string;
  let service: SpawnedService;
  let serviceUrl: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'slowdns-ts-project-'));
    service = spawnService({ ADMIN_TOKEN: 'a'.repeat(64), DATA_DIR: 'memory://' });
    serviceUrl = `http://127.0.0.1:${await service.port}`;
    await service.logged('ready');
  }, TIMEOUT_MS);
  afterAll(async () => {
    await service?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds the install block and the example in the guide', () => {
    expect(installBlock, `${GUIDE}: no sh block with npm pack`).toBeDefined();
    expect(exampleBlock, `${GUIDE}: no ts block with runInstall`).toBeDefined();
    expect(installBlock.text).toContain('/path/to/your-installer');
  });

  it("installs the packed client with the guide's commands and runs the example to a confirmed install", async () => {
    const packDir = join(dir, 'pack');
    const projectDir = join(dir, 'your-installer');
    mkdirSync(packDir);
    mkdirSync(projectDir);
    // npm as a reader has it, kept fast: the packages come from the local cache when they are there.
    const npmEnv = {
      ...process.env,
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };
    await run('sh', ['-c', installScript(installBlock, packDir, projectDir)], {
      cwd: repoRoot,
      env: npmEnv,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      expect.fail(`${where(installBlock)} failed:\n${error.stdout ?? ''}\n${error.stderr ?? error}`);
    });

    // A new code from the person's page, as the guide's Try it locally gets one.
    const page = await fetch(`${serviceUrl}/slowdns`);
    const cookie = /slowdns_browser=[^;]+/.exec(page.headers.get('set-cookie') ?? '')?.[0] ?? '';
    const issued = await fetch(`${serviceUrl}/api/v2/slowdns/code/issue`, { method: 'POST', headers: { cookie } });
    expect(issued.status).toBe(201);
    const installCode = ((await issued.json()) as { data: { install_code: string } }).data.install_code;

    writeFileSync(join(projectDir, 'machine-id'), '4c4c4544003957108052b4c04f384833\n');
    writeFileSync(join(projectDir, 'install.ts'), exampleBlock.text.replaceAll('http://localhost:8080', serviceUrl));
    const { stdout } = await run('npx', ['tsx', 'install.ts'], {
      cwd: projectDir,
      env: { ...npmEnv, npm_config_offline: 'true', SLOWDNS_INSTALL_CODE: installCode },
    }).catch((error: { stdout?: string; stderr?: string }) => {
      expect.fail(
        `npx tsx install.ts (${where(exampleBlock)}) failed:\n${error.stdout ?? ''}\n${error.stderr ?? error}`,
      );
    });
    expect(stdout).toMatch(/^installing for act_\S+\nconfirmed\n$/);
  });
});
