/**
 * The drift check, demonstrated rather than assumed: `npm run check:drift` (scripts/check-drift.sh) on a
 * scratch copy of the committed tree fails once a route schema changes without `generate:openapi`, then
 * fails again, naming the client types, once the document is regenerated but the client is not. That it
 * passes on the committed tree itself is CI's own drift step (.ci/run, before the tests), not run again
 * here: each run of the script costs seconds of CPU.
 *
 * It touches no database, so it runs on the PGlite pass only, not again on the PostgreSQL one.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

describe.skipIf(process.env.DATABASE_URL)('the drift check', () => {
  let copy: string;
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=drift-test', '-c', 'user.email=drift-test@localhost', ...args], {
      cwd: copy,
    });
  const run = (command: string, args: string[]) => {
    const result = spawnSync(command, args, { cwd: copy, encoding: 'utf8', timeout: 240_000 });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  };
  const checkDrift = () => run('bash', ['scripts/check-drift.sh']);

  beforeAll(async () => {
    // The committed tree, not the working one: other uncommitted work must not decide this test.
    copy = await mkdtemp(join(tmpdir(), 'slowdns-drift-'));
    const archive = execFileSync('git', ['archive', '--format=tar', 'HEAD'], {
      cwd: repo,
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', copy], { input: archive });
    await symlink(join(repo, 'node_modules'), join(copy, 'node_modules'));
    // check-drift.sh asks git what changed, so the copy is a repository with one commit.
    git('init', '-q');
    await writeFile(join(copy, '.git/info/exclude'), 'node_modules\n');
    git('add', '.');
    git('commit', '-q', '-m', 'committed tree');
  }, 300_000);
  afterAll(async () => {
    if (copy) await rm(copy, { recursive: true, force: true });
  });

  it('fails on an unregenerated route change, then on unregenerated client types', async () => {
    // A route's response schema gains a field; nobody runs `npm run generate`.
    const schemaFile = join(copy, 'src/schemas/activation.ts');
    const source = await readFile(schemaFile, 'utf8');
    const field = "status: z.literal('released').openapi({ example: 'released' }),";
    expect(source).toContain(field);
    await writeFile(schemaFile, source.replace(field, `${field}\n    released_at: z.string(),`));

    const routeDrift = checkDrift();
    expect(routeDrift.status).not.toBe(0);
    expect(routeDrift.output).toContain('openapi/openapi.json (fix: npm run generate:openapi)');

    // The document is regenerated (check-drift.sh wrote it) and committed; the client types are not.
    git('add', '.');
    git('commit', '-q', '-m', 'route change with its document, without the client types');
    const clientDrift = checkDrift();
    expect(clientDrift.status).not.toBe(0);
    expect(clientDrift.output).toContain('clients/typescript/src/schema.d.ts (fix: npm run generate:client)');
    expect(clientDrift.output).not.toContain('openapi/openapi.json (fix');

    // Regenerating the client is what clears it.
    expect(run('npm', ['run', '--silent', 'generate:client']).status).toBe(0);
    expect(await readFile(join(copy, 'clients/typescript/src/schema.d.ts'), 'utf8')).toContain('released_at: string;');
  }, 600_000);
});
