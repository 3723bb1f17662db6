// The DATA_DIR lock as a lease (DESIGN §29): every container runs the service as pid 1 under a host name of
// its own, so the lock names host, pid, pid namespace and a start id, is touched every 10 s, and is taken
// over only when 30 s stale or when its owner ran here and is gone. The servers' side (a second server
// refused, a killed one's lock taken over): startup.test.ts; two containers on one volume: test/container.
import { mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { DataDirError, LEASE_REFRESH_MS, LEASE_STALE_MS, lockDataDir } from '../../src/db/data-dir-lock.js';

const root = mkdtempSync(join(tmpdir(), 'slowdns-lease-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.useRealTimers());

let folders = 0;
const lockFileOf = (dir: string) => join(dir, 'slowdns.lock');
const ownNamespace = () => readlinkSync('/proc/self/ns/pid');

/** A folder whose lock file names `owner`, last touched `ageMs` ago. */
function heldFolder(owner: object, ageMs = 0): string {
  const dir = join(root, `folder-${++folders}`);
  lockDataDir(dir).release();
  writeFileSync(lockFileOf(dir), `${JSON.stringify({ start: 'earlier', pid_ns: 'pid:[1]', ...owner })}\n`);
  const at = new Date(Date.now() - ageMs);
  utimesSync(lockFileOf(dir), at, at);
  return dir;
}
const owner = (dir: string) => JSON.parse(readFileSync(lockFileOf(dir), 'utf8'));

describe('the DATA_DIR lease', () => {
  it('a lock another container holds (another host name, also pid 1), touched just now, refuses with one line naming it', () => {
    const dir = heldFolder({ host: 'container-a', pid: 1 }, 4000);
    expect(() => lockDataDir(dir, { pid: 1 })).toThrowError(
      new DataDirError(
        `DATA_DIR ${dir} is in use by process 1 on container-a (lock file ${lockFileOf(dir)}, refreshed 4 s ago); stop it first, or point DATA_DIR elsewhere`,
      ),
    );
    expect(owner(dir).host).toBe('container-a');
  });

  it('the same lock 30 s stale (its container gone) is taken over', () => {
    const dir = heldFolder({ host: 'container-a', pid: 1 }, LEASE_STALE_MS + 1000);
    const lock = lockDataDir(dir, { pid: 1 });
    expect(owner(dir)).toMatchObject({ host: hostname(), pid: 1 });
    lock.release();
  });

  it('on this host and pid namespace, a lock whose process is gone, or that names our own pid (an earlier start), is taken over at once', () => {
    for (const pid of [2 ** 22 + 17, process.pid]) {
      const dir = heldFolder({ host: hostname(), pid, pid_ns: ownNamespace() });
      const lock = lockDataDir(dir);
      expect(owner(dir)).toMatchObject({ host: hostname(), pid: process.pid });
      expect(owner(dir).start).not.toBe('earlier');
      lock.release();
    }
  });

  it('the same pid under the same host name in another pid namespace (two containers given one host name) is refused', () => {
    const dir = heldFolder({ host: hostname(), pid: process.pid, pid_ns: 'pid:[4026531836000]' });
    expect(() => lockDataDir(dir)).toThrow(DataDirError);
  });

  it('the owner touches the lock every 10 s, and when another has taken it over, it is told and leaves the file alone', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const dir = join(root, `folder-${++folders}`);
    // The lease's clock a minute ahead of the file system's: a refresh is seen in the file's time.
    let clock = Date.now() + 60_000;
    const lost: string[] = [];
    const lock = lockDataDir(dir, { now: () => clock, onLost: (reason) => lost.push(reason) });
    expect(statSync(lockFileOf(dir)).mtimeMs).toBeLessThan(clock);
    clock += LEASE_REFRESH_MS;
    vi.advanceTimersByTime(LEASE_REFRESH_MS);
    expect(statSync(lockFileOf(dir)).mtimeMs).toBeGreaterThanOrEqual(clock - 1);
    expect(lost).toEqual([]);

    writeFileSync(lockFileOf(dir), `${JSON.stringify({ host: 'container-b', pid: 1, start: 'theirs', pid_ns: '' })}\n`);
    vi.advanceTimersByTime(LEASE_REFRESH_MS);
    expect(lost).toEqual([`DATA_DIR ${dir}: the lock file ${lockFileOf(dir)} no longer names this process`]);
    lock.release();
    expect(owner(dir).host).toBe('container-b');
  });

  it('release removes the lock file, so the next start takes the folder at once', () => {
    const dir = join(root, `folder-${++folders}`);
    lockDataDir(dir, { pid: 1 }).release();
    expect(() => statSync(lockFileOf(dir))).toThrow();
    lockDataDir(dir, { pid: 1 }).release();
  });
});
