import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Why an embedded database folder cannot be used: one line, naming the folder. */
export class DataDirError extends Error {}

export interface DataDirLock {
  /** Removes the lock file (only while it still names this process). */
  release(): void;
}

const LOCK_FILE = 'slowdns.pid';

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * One process owns an embedded database folder (PGlite has one connection: a second process would
 * open its own copy and lose writes): `DATA_DIR/slowdns.pid`, created with O_EXCL, holds the owner's
 * pid. A lock whose process is gone (killed, crashed) is taken over. `memory://` needs none.
 */
export function lockDataDir(dataDir: string, pid = process.pid): DataDirLock {
  const file = join(dataDir, LOCK_FILE);
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
      writeSync(fd, `${pid}\n`);
      closeSync(fd);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST')
        throw new DataDirError(`DATA_DIR ${dataDir} is not writable (${code ?? (err as Error).message})`);
      const owner = Number.parseInt(readLock(file), 10);
      if (Number.isInteger(owner) && owner > 0 && owner !== pid && isRunning(owner)) {
        throw new DataDirError(
          `DATA_DIR ${dataDir} is in use by process ${owner} (lock file ${file}); stop it first, or point DATA_DIR elsewhere`,
        );
      }
      // Stale (its process is gone) or unreadable: take it over. (Two processes taking over the same
      // stale lock in the same instant could both win; a start after a crash is not that.)
      if (attempt > 0) throw new DataDirError(`DATA_DIR ${dataDir}: could not take over the stale lock file ${file}`);
      try {
        unlinkSync(file);
      } catch {
        // Removed by another process taking it over: try again.
      }
    }
  }
  return {
    release() {
      try {
        if (Number.parseInt(readLock(file), 10) === pid) unlinkSync(file);
      } catch {
        // Already gone.
      }
    },
  };
}

function readLock(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}
