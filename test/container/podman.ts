// Podman for test/container: every call through podman.sh (the CI machine's quirks), containers and
// volumes named per run and removed at the end.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const wrapper = fileURLToPath(new URL('./podman.sh', import.meta.url));

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `podman args…`; never rejects (the exit code is in the result). */
export function podman(args: string[], timeoutMs = 60_000): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(wrapper, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout: stdout.trim(), stderr: stderr.trim() });
    });
  });
}

/** `podman args…`, failing with its output when it exits non-zero. */
export async function podmanOk(args: string[], timeoutMs?: number): Promise<string> {
  const ran = await podman(args, timeoutMs);
  if (ran.code !== 0) throw new Error(`podman ${args.join(' ')} exited ${ran.code}: ${ran.stderr || ran.stdout}`);
  return ran.stdout;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A TCP port free on 127.0.0.1 just now, outside the kernel's ephemeral range (32768-60999), where the
 * servers other tests start on port 0 land: a port of this range is not taken between this check and the
 * container's start.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer()
        .once('error', () => resolve(false))
        .listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** Names for this run's containers and volumes, and their removal. */
export function runNames(prefix: string) {
  const id = randomBytes(4).toString('hex');
  const containers: string[] = [];
  const volumes: string[] = [];
  return {
    container(name: string) {
      containers.push(`${prefix}-${name}-${id}`);
      return containers.at(-1)!;
    },
    volume(name: string) {
      volumes.push(`${prefix}-${name}-${id}`);
      return volumes.at(-1)!;
    },
    async removeAll() {
      if (containers.length) await podman(['rm', '--force', '--volumes', '--time', '0', ...containers]);
      if (volumes.length) await podman(['volume', 'rm', '--force', ...volumes]);
    },
  };
}

/**
 * Polls `podman healthcheck run` (the image's HEALTHCHECK; Podman runs it on a timer only under systemd)
 * until it passes: the milliseconds from `since`.
 */
export async function healthy(container: string, since: number, timeoutMs = 90_000): Promise<number> {
  while (Date.now() - since < timeoutMs) {
    const ran = await podman(['healthcheck', 'run', container]);
    if (ran.code === 0) return Date.now() - since;
    const state = await podman(['inspect', container, '--format', '{{.State.Status}}']);
    if (state.stdout !== 'running') {
      const logs = await podman(['logs', container]);
      throw new Error(`${container} is ${state.stdout}: ${logs.stdout}\n${logs.stderr}`);
    }
    await sleep(250);
  }
  throw new Error(`${container} not healthy within ${timeoutMs} ms`);
}

/** The container's memory as `podman stats` reports it (e.g. "95.2MB / 25.28GB"). */
export async function memory(container: string): Promise<string> {
  return podmanOk(['stats', '--no-stream', '--format', '{{.MemUsage}}', container]);
}
