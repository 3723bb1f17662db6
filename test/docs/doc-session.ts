/**
 * A page's blocks run as a reader pastes them into one terminal, opened in the checkout: each block in
 * an `sh` (or, for TypeScript, a node with tsx) of its own, the exported variables and the working
 * directory carried over to the next block through two files.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot, type DocBlock } from './doc-blocks.js';

interface BlockRun {
  code: number | string;
  stdout: string;
  stderr: string;
}

export interface DocSession {
  run(block: DocBlock): Promise<BlockRun>;
  close(): void;
}

const BLOCK_TIMEOUT_MS = 120_000;
/** What a block's text says for a service started locally with `npm start`. */
const DOCUMENTED_URL = 'http://localhost:8080';
const CLIENT_PACKAGE = '@slowdns/activation-client';
const clientSource = join(repoRoot, 'clients/typescript/src/index.ts');
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

export function openDocSession(options: { serviceUrl: string; adminToken: string }): DocSession {
  const dir = mkdtempSync(join(tmpdir(), 'slowdns-doc-'));
  const envFile = join(dir, 'session.env');
  const cwdFile = join(dir, 'session.cwd');
  for (const sub of ['home', 'tmp', 'blocks', 'bin']) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, 'bin', 'npx'), npxShim(), { mode: 0o755 });
  writeFileSync(envFile, '');
  writeFileSync(cwdFile, `${repoRoot}\n`);
  // What a reader's terminal has, and no more: the test run's own DATABASE_URL never leaks in.
  const env = {
    PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`,
    HOME: join(dir, 'home'),
    TMPDIR: join(dir, 'tmp'),
    LANG: 'C.UTF-8',
    ADMIN_TOKEN: options.adminToken,
    SLOWDNS_URL: options.serviceUrl,
    // A block can never fetch a package (npx of a name that is not the checkout's own would).
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
  };
  // Enters the session's directory with its variables; the shell's own exit status is the block's.
  const enter = `cd "$(cat ${quote(cwdFile)})"\n. ${quote(envFile)}\n`;
  let count = 0;

  return {
    run(block) {
      const text = block.text.replaceAll(DOCUMENTED_URL, options.serviceUrl);
      const file = join(dir, 'blocks', `${++count}-${block.page.replaceAll('/', '_')}-${block.line}`);
      let script: string;
      if (block.language === 'ts') {
        writeFileSync(`${file}.mts`, text.replaceAll(`'${CLIENT_PACKAGE}'`, quote(clientSource)));
        script = `${enter}exec node --import ${quote(tsxLoader)} ${quote(`${file}.mts`)}\n`;
      } else {
        const save = `export -p >${quote(envFile)}; pwd >${quote(cwdFile)}`;
        script = `${enter}trap 'status=$?; ${save.replaceAll("'", `'\\''`)}; exit $status' EXIT\nset -eu\n${text}`;
      }
      writeFileSync(`${file}.sh`, script);
      return runScript(`${file}.sh`, env);
    },
    close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The session's `npx`: `npx slowdns …` runs the checkout's own bin (package.json "bin", what npx
 * resolves it to) without npm's start-up, about 0.7 s of CPU a call over the guides' forty; anything else
 * goes to the real npx.
 */
function npxShim(): string {
  const realNpx = execFileSync('sh', ['-c', 'command -v npx'], { encoding: 'utf8' }).trim();
  const bin = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).bin.slowdns as string;
  return `#!/bin/sh\nif [ "$1" = slowdns ]; then shift; exec node ${quote(join(repoRoot, bin))} "$@"; fi\nexec ${quote(realNpx)} "$@"\n`;
}

function runScript(file: string, env: Record<string, string>): Promise<BlockRun> {
  // In a session of its own: no terminal to ask (/dev/tty), and the whole group can be stopped.
  const child = spawn('sh', [file], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => {
    stderr += `\n(doc test: stopped after ${BLOCK_TIMEOUT_MS} ms)`;
    process.kill(-child.pid!, 'SIGKILL');
  }, BLOCK_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal ?? 'unknown', stdout, stderr });
    });
  });
}
