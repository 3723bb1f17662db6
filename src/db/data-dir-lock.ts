import { randomBytes } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** Why an embedded database folder cannot be used: one line, naming the folder. */
export class DataDirError extends Error {}

export interface DataDirLock {
  /** Stops the refresh and removes the lock file (only while it still names this process). */
  release(): void;
}

/** Who holds a folder: the lock file's one JSON line. */
interface Owner {
  host: string;
  pid: number;
  /** Random per start: tells this process from an earlier one with the same host name and pid. */
  start: string;
  /** The pid namespace (Linux): a pid means the same process only inside the same one. */
  pid_ns: string;
}

const LOCK_FILE = 'slowdns.lock';
/** The owner touches the lock file this often... */
export const LEASE_REFRESH_MS = 10_000;
/** ...and a lock untouched this long is abandoned (its owner is gone, wherever it ran). */
export const LEASE_STALE_MS = 30_000;

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

/**
 * One process owns an embedded database folder (PGlite has one connection: a second process would open
 * its own copy and lose writes), through a lease (DESIGN §29): `DATA_DIR/slowdns.lock`, created with
 * O_EXCL, names the owner (host name, pid, pid namespace, a random start id), and the owner touches it
 * every 10 s. Every container runs the service as pid 1 with a host name of its own, so a pid alone
 * says nothing across containers: another process takes the folder over only when the lock is 30 s
 * stale, or at once when its owner ran on this host, in this pid namespace, and is gone (a restart after
 * a crash). `onLost` is called when the file no longer names this process (it stalled past 30 s and
 * another took over): it must stop writing. `memory://` needs none.
 */
export function lockDataDir(
  dataDir: string,
  options: { pid?: number; onLost?: (owner: string) => void; now?: () => number } = {},
): DataDirLock {
  const { pid = process.pid, onLost, now = Date.now } = options;
  const file = join(dataDir, LOCK_FILE);
  const self: Owner = { host: hostname(), pid, start: randomBytes(8).toString('hex'), pid_ns: pidNamespace() };
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (err) {
    throw new DataDirError(
      `DATA_DIR ${dataDir} cannot be created (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o644);
      writeSync(fd, `${JSON.stringify(self)}\n`);
      closeSync(fd);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST')
        throw new DataDirError(`DATA_DIR ${dataDir} is not writable (${code ?? (err as Error).message})`);
      const held = readLock(file);
      const age = now() - held.touchedAt;
      if (held.owner && age <= LEASE_STALE_MS && !ownerIsGone(held.owner, self)) {
        throw new DataDirError(
          `DATA_DIR ${dataDir} is in use by process ${held.owner.pid} on ${held.owner.host} (lock file ${file}, ` +
            `refreshed ${Math.max(0, Math.round(age / 1000))} s ago); stop it first, or point DATA_DIR elsewhere`,
        );
      }
      // Stale, its owner gone, or unreadable: take it over. (Two processes taking over the same stale
      // lock in the same instant could both write it; the loser finds it lost at its next refresh.)
      if (attempt > 0) throw new DataDirError(`DATA_DIR ${dataDir}: could not take over the stale lock file ${file}`);
      try {
        unlinkSync(file);
      } catch {
        // Removed by another process taking it over: try again.
      }
    }
  }
  const isOurs = () => readLock(file).owner?.start === self.start;
  const refresh = setInterval(() => {
    if (!isOurs()) {
      clearInterval(refresh);
      onLost?.(`DATA_DIR ${dataDir}: the lock file ${file} no longer names this process`);
      return;
    }
    try {
      const at = new Date(now());
      utimesSync(file, at, at);
    } catch {
      // Removed meanwhile: the next refresh says it is lost.
    }
  }, LEASE_REFRESH_MS).unref();
  return {
    release() {
      clearInterval(refresh);
      try {
        if (isOurs()) unlinkSync(file);
      } catch {
        // Already gone.
      }
    },
  };
}

/** On this host and in this pid namespace, a pid that is ours or not running is an earlier, gone owner. */
function ownerIsGone(owner: Owner, self: Owner): boolean {
  if (owner.host !== self.host || owner.pid_ns !== self.pid_ns) return false;
  return owner.pid === self.pid || !isRunning(owner.pid);
}

function readLock(file: string): { owner?: Owner; touchedAt: number } {
  try {
    const touchedAt = statSync(file).mtimeMs;
    const owner = JSON.parse(readFileSync(file, 'utf8')) as Partial<Owner>;
    const valid = typeof owner.host === 'string' && Number.isInteger(owner.pid) && typeof owner.start === 'string';
    return { owner: valid ? (owner as Owner) : undefined, touchedAt };
  } catch {
    return { touchedAt: 0 };
  }
}
