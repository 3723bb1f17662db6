import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { spawnService } from '../support/spawn-service.js';

// What a process supervisor does: start `npm start`, later send its process SIGTERM (or SIGINT, as a
// terminal's Ctrl-C does) and wait for it to exit. The real npm, the real script, the compiled server.
const SPAWN_TIMEOUT_MS = 180_000;

/** The processes below `pid`, read from /proc (Linux). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length > 0; ) {
    const next = children.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const answers = (port: number) =>
  fetch(`http://127.0.0.1:${port}/api/v2/livez`).then(
    (res) => res.status,
    () => 'nothing',
  );

/** The exit, or 'still running' when none comes within `ms`. */
async function exitedWithin(exited: Promise<number | string>, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<string>((resolve) => (timer = setTimeout(resolve, ms, 'still running')));
  try {
    return await Promise.race([exited, limit]);
  } finally {
    clearTimeout(timer);
  }
}

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

describe('npm start under a process supervisor', { timeout: SPAWN_TIMEOUT_MS }, () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s to the npm process stops the server the graceful way: npm exits 0, nothing answers, the port is free, no process of it is left',
    async (signal) => {
      const service = spawnService({ DATA_DIR: 'memory://' }, ['npm', 'start']);
      let started: number[] = [];
      try {
        const port = await service.port;
        await service.logged('ready');
        expect(await answers(port)).toBe(200);
        // npm's children: the server's node (and, were the script not exec'd, the shell between them).
        started = descendants(service.process.pid!);
        expect(started.length).toBeGreaterThan(0);

        service.process.kill(signal);
        // Bounded so that a stop that never comes fails here, with the cleanup below, not at the test's limit.
        const exit = await exitedWithin(service.exited, 60_000);
        expect({
          exit,
          left: started.filter(alive),
          answers: await answers(port),
          portIsFree: await portIsFree(port),
        }).toEqual({
          exit: 0,
          left: [],
          answers: 'nothing',
          portIsFree: true,
        });
        expect(await service.logged('shutting down')).toMatchObject({ signal });
        await service.logged('stopped');
      } finally {
        // A failing run must not leave a server behind.
        for (const pid of new Set([...started, ...descendants(service.process.pid!), service.process.pid!])) {
          if (alive(pid)) process.kill(pid, 'SIGKILL');
        }
      }
    },
  );
});
