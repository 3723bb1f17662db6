import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnService } from '../support/spawn-service.js';

// A newcomer's first `npm start` (issue 59, point 10): on a fresh clone it built dist/ and then the embedded
// database's seed (initdb and every migration in PGlite) before the port answered, in a build process of its own
// without the server's Liftoff-only flags. Now `npm start` builds dist/ alone, the server answers at once (503
// while starting) and makes the seed at the fresh DATA_DIR's start, keeps it beside the compiled migrations for
// the next fresh start (a `memory://` restart), and unpacks it; `--if-stale`, which the tests and bats run, then
// finds dist/ current.
const root = fileURLToPath(new URL('../..', import.meta.url));
const FIRST_START_MS = 400_000;

const clone = await mkdtemp(join(tmpdir(), 'slowdns-fresh-clone-'));
afterAll(() => rm(clone, { recursive: true, force: true }));

/** The checkout's files as a clone has them (what git tracks, as they are now), and node_modules as npm ci left it. */
async function freshClone(): Promise<void> {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of tracked.filter((f) => existsSync(join(root, f)))) await cp(join(root, file), join(clone, file));
  await symlink(join(root, 'node_modules'), join(clone, 'node_modules'));
}

describe('the first npm start of a fresh clone', { timeout: FIRST_START_MS }, () => {
  it('builds dist/ alone, then makes and keeps the seed at the fresh DATA_DIR, healthy with 1 MB WAL segments', async () => {
    await freshClone();
    const dataDir = join(clone, 'data');
    const service = spawnService({ DATA_DIR: dataDir }, ['npm', 'start'], clone);
    try {
      const port = await service.port;
      await service.logged('ready', FIRST_START_MS - 30_000);
      expect((await fetch(`http://127.0.0.1:${port}/api/v2/healthz`)).status).toBe(200);
      expect(service.stderr()).toContain('slowdns: building dist/');
      expect(existsSync(join(clone, 'dist', 'build-finished'))).toBe(true);
      // Kept by the server for the next fresh start, made after the build finished (not by it).
      const seed = join(clone, 'dist', 'drizzle', 'pglite-seed.tar.gz');
      expect((await stat(seed)).mtimeMs).toBeGreaterThan((await stat(join(clone, 'dist', 'build-finished'))).mtimeMs);
      expect((await readdir(join(clone, 'dist', 'drizzle'))).filter((f) => f.endsWith('.partial'))).toEqual([]);
      const segments = (await readdir(join(dataDir, 'pg_wal'))).filter((f) => /^[0-9A-F]{24}$/.test(f));
      expect(segments.length).toBeGreaterThan(0);
      for (const segment of segments) expect((await stat(join(dataDir, 'pg_wal', segment))).size).toBe(2 ** 20);
    } finally {
      expect(await service.stop()).toBe(0);
    }
    // What the tests and bats run before anything loads the seed: dist/ and the kept seed are current.
    const built = execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: clone, encoding: 'utf8' });
    expect(built).toBe('dist/ is current\n');
  });
});
