/**
 * A DATABASE_URL that waiting cannot cure fails the start: one plain line naming the fix, exit 1, instead of
 * listening and answering 503 forever (under Restart=on-failure nothing would ever show the typo). One test
 * per class of error, against real servers: PostgreSQL for a missing database and a missing role, a private
 * PostgreSQL with password authentication for a refused password, the resolver for a name that does not exist.
 * What may heal (a refused connection) is still retried: test/outage/startup.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnService, TEST_KEK } from '../support/spawn-service.js';

const SPAWN_TIMEOUT_MS = 180_000;
const adminUrl = process.env.DATABASE_URL;
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** The refusal's stderr and exit code; the service must not have answered readiness before it. */
async function refusedStart(databaseUrl: string): Promise<{ exit: number | string; lines: string[] }> {
  const service = spawnService({ DATABASE_URL: databaseUrl, KEY_ENCRYPTION_KEY: TEST_KEK });
  const exit = await Promise.race([
    service.exited,
    new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 60_000)),
  ]);
  await service.stop();
  return { exit, lines: service.stderr().split('\n').filter(Boolean) };
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

// Through PgBouncer (CI's pass 3) a missing database or role is the pooler's own login failure, which the
// service cannot tell from a server still starting: retried, as any refusal that may heal. These two run
// where DATABASE_URL is PostgreSQL itself.
const poolerHost = process.env.TEST_POOLER_URL ? new URL(process.env.TEST_POOLER_URL).host : undefined;
const throughPooler = adminUrl !== undefined && new URL(adminUrl).host === poolerHost;

describe.skipIf(!adminUrl)('a start on a DATABASE_URL waiting cannot cure', { timeout: SPAWN_TIMEOUT_MS }, () => {
  const host = () => new URL(adminUrl!).host;

  it.skipIf(throughPooler)(
    'a database that does not exist (3D000): exit 1, one line saying so and how to fix it',
    async () => {
      const { exit, lines } = await refusedStart(`postgres://postgres@${host()}/slowdns_no_such_database`);
      expect(exit).toBe(1);
      expect(lines).toEqual([
        `slowdns: the database in DATABASE_URL does not exist (postgres://${host()}/slowdns_no_such_database: database "slowdns_no_such_database" does not exist); create it (createdb), or correct the name in DATABASE_URL`,
      ]);
    },
  );

  it.skipIf(throughPooler)('a role that does not exist (28000): exit 1, one line naming the user setting', async () => {
    const { exit, lines } = await refusedStart(`postgres://slowdns_no_such_role@${host()}/postgres`);
    expect(exit).toBe(1);
    expect(lines).toEqual([
      `slowdns: the database refused the user in DATABASE_URL (postgres://${host()}/postgres: role "slowdns_no_such_role" does not exist); create the role, allow it in pg_hba.conf, or correct the user in DATABASE_URL`,
    ]);
  });

  it('a host name that does not resolve (ENOTFOUND): exit 1, one line naming the host setting', async () => {
    const { exit, lines } = await refusedStart('postgres://postgres@slowdns-no-such-host.invalid:5432/postgres');
    expect(exit).toBe(1);
    expect(lines).toEqual([
      'slowdns: the host name in DATABASE_URL does not resolve (postgres://slowdns-no-such-host.invalid:5432/postgres); correct the host in DATABASE_URL',
    ]);
  });

  describe('a password the server refuses (28P01), on a private PostgreSQL with scram-sha-256', () => {
    let dir = '';
    let port = 0;
    const asPostgres = (command: string) =>
      process.getuid?.() === 0
        ? execFileSync('su', ['postgres', '-c', command], { stdio: 'pipe' })
        : execFileSync('bash', ['-c', command], { stdio: 'pipe' });
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'slowdns-auth-'));
      chmodSync(dir, 0o777);
      writeFileSync(join(dir, 'pw'), 'right-password\n', { mode: 0o644 });
      port = await freePort();
      asPostgres(`${PG_BIN}/initdb -D ${dir}/data -U postgres -A scram-sha-256 --pwfile=${dir}/pw`);
      asPostgres(
        `${PG_BIN}/pg_ctl -D ${dir}/data -l ${dir}/pg.log -w -o '-p ${port} -k ${dir} -c listen_addresses=127.0.0.1' start`,
      );
    }, SPAWN_TIMEOUT_MS);
    afterAll(() => {
      if (!dir) return;
      try {
        asPostgres(`${PG_BIN}/pg_ctl -D ${dir}/data -m immediate -w stop`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('exit 1, one line naming the password setting, never the password', async () => {
      const { exit, lines } = await refusedStart(`postgres://postgres:wrong-password@127.0.0.1:${port}/postgres`);
      expect(exit).toBe(1);
      expect(lines).toEqual([
        `slowdns: the database refused the password in DATABASE_URL (postgres://127.0.0.1:${port}/postgres: password authentication failed for user "postgres"); correct the password in DATABASE_URL`,
      ]);
      expect(lines.join('\n')).not.toContain('wrong-password');
    });
  });
});
