import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The node options of `npm start` (package.json: `exec node --option=value … scripts/start.mjs`), given to
 * every node spawned here, and by the benches to each side they compare (the floor, a baseline checkout, a
 * bare Hono): the servers run as `npm start` runs them. Any other shape of that script is refused here.
 */
export const npmStartNodeOptions: string[] = (() => {
  const { start } = (JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { scripts: { start: string } })
    .scripts;
  const options = /^exec node((?: --[a-z-]+=\S+)*) scripts\/start\.mjs$/.exec(start);
  if (!options)
    throw new Error(`package.json's start script is not "exec node --option=value … scripts/start.mjs": ${start}`);
  return options[1]!.split(' ').filter(Boolean);
})();

/**
 * The KEY_ENCRYPTION_KEY of services the tests start on PostgreSQL, where one is required as in any
 * deployment: their signing keys are kept sealed (a fixed value: each test database is thrown away).
 */
export const TEST_KEK = Buffer.alloc(32, 0x5d).toString('base64url');

export interface SpawnedService {
  process: ChildProcess;
  /** Every stdout line so far (JSON log lines). */
  stdout: string[];
  /** Everything written to stderr so far. */
  stderr(): string;
  /** The port from the `listening` log line. */
  port: Promise<number>;
  /** The exit code (or the signal's name). */
  exited: Promise<number | string>;
  /** Resolves with the first log line whose `msg` is `msg`. */
  logged(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(): Promise<number | string>;
}

/**
 * The server in a child process as `npm start` runs it (scripts/start.mjs: the compiled server, with the
 * build's PGlite seed; global-setup.ts has built dist/), or another entry and its arguments, a `.ts`
 * one through tsx as npm runs it (`src/cli/main.ts prune` for `npm run prune`), or `npm` itself with
 * its arguments (`['npm', 'start']`: npm from PATH, and the node PATH names). The environment is
 * exactly `env` plus PATH (and HOME, for npm), so the test's own DATABASE_URL never leaks in. `cwd` is this
 * checkout unless given (a copy of it, as a fresh clone).
 */
export function spawnService(env: Record<string, string>, command = ['scripts/start.mjs'], cwd = root): SpawnedService {
  const loader = command[0]!.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const npm = command[0] === 'npm';
  const child = spawn(
    npm ? 'npm' : process.execPath,
    npm ? command.slice(1) : [...npmStartNodeOptions, ...loader, ...command],
    {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        ...(npm ? { HOME: process.env.HOME ?? '' } : {}),
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        PUBLIC_BASE_URL: 'http://localhost:8080',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const stdout: string[] = [];
  let stderr = '';
  const waiters: { msg: string; resolve: (line: Record<string, unknown>) => void }[] = [];
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      stdout.push(line);
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      for (const w of waiters.filter((w) => w.msg === parsed.msg)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(parsed);
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const logged = (msg: string, timeoutMs = 150_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const seen = stdout
        .map((l) => {
          try {
            return JSON.parse(l) as Record<string, unknown>;
          } catch {
            return undefined;
          }
        })
        .find((l) => l?.msg === msg);
      if (seen) return resolve(seen);
      const timer = setTimeout(
        () => reject(new Error(`no "${msg}" log line in ${timeoutMs} ms; stderr: ${stderr}`)),
        timeoutMs,
      );
      waiters.push({
        msg,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`exited (${code}) before "${msg}"; stderr: ${stderr}`));
      });
    });
  const port = logged('listening').then((line) => Number(line.port));
  // A process expected to fail never logs it: only a test that awaits the port sees the rejection.
  port.catch(() => {});
  return {
    process: child,
    stdout,
    stderr: () => stderr,
    port,
    exited,
    logged,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
