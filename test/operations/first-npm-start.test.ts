import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnService } from '../support/spawn-service.js';

// A newcomer's first `npm start` (issue 59, point 10): on a fresh clone it built dist/ and then the embedded
// database's seed, which is initdb and every migration in PGlite, only for the fresh DATA_DIR to unpack it: the
// same work a fresh folder does itself. Now `npm start` builds no seed, the fresh folder runs initdb (with the
// seed's 1 MB WAL segments) and the start migrates it; `--if-stale`, which the tests and bats run, makes the seed.
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
  it('builds dist/ without the seed and starts healthy on a fresh DATA_DIR with 1 MB WAL segments', async () => {
    await freshClone();
    const dataDir = join(clone, 'data');
    const service = spawnService({ DATA_DIR: dataDir }, ['npm', 'start'], clone);
    try {
      const port = await service.port;
      await service.logged('ready', FIRST_START_MS - 30_000);
      expect((await fetch(`http://127.0.0.1:${port}/api/v2/healthz`)).status).toBe(200);
      expect(service.stderr()).toContain('slowdns: building dist/');
      expect(existsSync(join(clone, 'dist', 'build-finished'))).toBe(true);
      expect(existsSync(join(clone, 'dist', 'drizzle', 'pglite-seed.tar.gz'))).toBe(false);
      const segments = (await readdir(join(dataDir, 'pg_wal'))).filter((f) => /^[0-9A-F]{24}$/.test(f));
      expect(segments.length).toBeGreaterThan(0);
      for (const segment of segments) expect((await stat(join(dataDir, 'pg_wal', segment))).size).toBe(2 ** 20);
    } finally {
      expect(await service.stop()).toBe(0);
    }
    // What the tests and bats run before anything loads the seed: dist/ is current, so only the seed is made.
    const built = execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: clone, encoding: 'utf8' });
    expect(built).toMatch(/^built its seed in \d+ ms$/m);
    expect(existsSync(join(clone, 'dist', 'drizzle', 'pglite-seed.tar.gz'))).toBe(true);
  });
});
