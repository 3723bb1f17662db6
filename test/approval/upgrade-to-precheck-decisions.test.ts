import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { listInstallCodes } from '../../src/domain/admin-lists/install-code-list.js';
import { operatorPrechecksOf } from '../../src/domain/install-codes/operator-prechecks.js';
import { migrateToRelease } from '../support/migrate-to-release.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.js';
import { queryRows } from '../support/test-database.js';

/** The last migration of the release that kept a `uses: 1` code's decision on the code's row. */
const LAST_WITH_DECISIONS_ON_CODES = '0020_narrower_indexes';
const ISSUED = '2026-11-20T10:00:00Z';
const DECIDED = '2026-11-20T10:05:00Z';
const NOW = new Date('2026-11-20T11:00:00Z');

describe('upgrading a database that kept decisions on the code', () => {
  let database: DatabaseHandle | undefined;
  let scratch: ScratchDatabase | undefined;
  afterAll(async () => {
    await database?.close();
    await scratch?.drop();
  });

  it("moves each uses: 1 code's decision onto its precheck and keeps whether approval is required, every code reading as before", async () => {
    if (process.env.DATABASE_URL) scratch = await createScratchDatabase(process.env.DATABASE_URL, 'slowdns_upgrade');
    database = await openDatabase({ databaseUrl: scratch?.url, dataDir: 'memory://' });
    const db = database.db;
    await migrateToRelease(db, LAST_WITH_DECISIONS_ON_CODES);
    // Approved on its second precheck, denied (and revoked), waiting, issued without approval, and a fleet code
    // with `uses` > 1 whose prechecks an operator decided one by one (`approval` only its marker).
    await db.execute(sql`
      insert into install_codes (id, code_hash, hint, status, issued_at, expires_at, revoked_at, approval, approval_precheck_id, approval_decided_at, uses)
      values ('ic_approved', 'h1', 'SLOW-****-AAAA', 'issued', ${ISSUED}, '2026-11-21T10:00:00Z', null, 'approved', 'pc_approved2', ${DECIDED}, 1),
        ('ic_denied', 'h2', 'SLOW-****-BBBB', 'revoked', ${ISSUED}, '2026-11-21T10:00:00Z', ${DECIDED}, 'denied', 'pc_denied', ${DECIDED}, 1),
        ('ic_pending', 'h3', 'SLOW-****-CCCC', 'issued', ${ISSUED}, '2026-11-21T10:00:00Z', null, 'pending', null, null, 1),
        ('ic_none', 'h4', 'SLOW-****-DDDD', 'issued', ${ISSUED}, '2026-11-21T10:00:00Z', null, null, null, null, 1),
        ('ic_fleet', 'h5', 'SLOW-Z***-EEEE', 'issued', ${ISSUED}, '2026-11-21T10:00:00Z', null, 'pending', null, null, 3)`);
    await db.execute(sql`
      insert into install_code_prechecks (id, install_code_id, prechecked_at, ip, machine_id, ssh_fingerprint, installer_version, decision, decided_at)
      values ('pc_approved1', 'ic_approved', '2026-11-20T10:01:00Z', '192.0.2.1', 'm1', 'SHA256:a', '2026.11.20.1', null, null),
        ('pc_approved2', 'ic_approved', '2026-11-20T10:02:00Z', '192.0.2.2', 'm2', 'SHA256:b', '2026.11.20.1', null, null),
        ('pc_denied', 'ic_denied', '2026-11-20T10:01:00Z', '192.0.2.3', 'm3', 'SHA256:c', '2026.11.20.1', null, null),
        ('pc_pending', 'ic_pending', '2026-11-20T10:01:00Z', '192.0.2.4', 'm4', 'SHA256:d', '2026.11.20.1', null, null),
        ('pc_fleet1', 'ic_fleet', '2026-11-20T10:01:00Z', '192.0.2.5', 'm5', 'SHA256:e', '2026.11.20.1', 'approved', ${DECIDED}),
        ('pc_fleet2', 'ic_fleet', '2026-11-20T10:02:00Z', '192.0.2.6', 'm6', 'SHA256:f', '2026.11.20.1', 'denied', ${DECIDED}),
        ('pc_fleet3', 'ic_fleet', '2026-11-20T10:03:00Z', '192.0.2.7', 'm7', 'SHA256:g', '2026.11.20.1', null, null)`);

    await migrateDatabase(db);

    expect(await queryRows(db, sql`select id, status, require_approval from install_codes order by id`)).toEqual([
      { id: 'ic_approved', status: 'issued', require_approval: true },
      { id: 'ic_denied', status: 'revoked', require_approval: true },
      { id: 'ic_fleet', status: 'issued', require_approval: true },
      { id: 'ic_none', status: 'issued', require_approval: false },
      { id: 'ic_pending', status: 'issued', require_approval: true },
    ]);
    const decisions = await queryRows<{ id: string; decision: string | null; decided: boolean }>(
      db,
      sql`select id, decision, decided_at = ${DECIDED}::timestamptz as decided from install_code_prechecks order by id`,
    );
    expect(decisions).toEqual([
      { id: 'pc_approved1', decision: null, decided: null },
      { id: 'pc_approved2', decision: 'approved', decided: true },
      { id: 'pc_denied', decision: 'denied', decided: true },
      { id: 'pc_fleet1', decision: 'approved', decided: true },
      { id: 'pc_fleet2', decision: 'denied', decided: true },
      { id: 'pc_fleet3', decision: null, decided: null },
      { id: 'pc_pending', decision: null, decided: null },
    ]);

    // Each code, and each precheck, stands where it stood: as the admin API and the console read them.
    const { items } = await listInstallCodes(db, { limit: 10 }, NOW);
    expect(Object.fromEntries(items.map((item) => [item.code.id, item.approval]))).toEqual({
      ic_approved: 'approved',
      ic_denied: 'denied',
      ic_pending: 'pending',
      ic_none: 'not_required',
      ic_fleet: 'pending',
    });
    const approvalsOf = async (id: string) =>
      Object.fromEntries(
        (await operatorPrechecksOf(db, items.find((item) => item.code.id === id)!.code)).map((p) => [p.id, p.approval]),
      );
    expect(await approvalsOf('ic_approved')).toEqual({ pc_approved1: 'not_chosen', pc_approved2: 'approved' });
    expect(await approvalsOf('ic_denied')).toEqual({ pc_denied: 'denied' });
    expect(await approvalsOf('ic_fleet')).toEqual({ pc_fleet1: 'approved', pc_fleet2: 'denied', pc_fleet3: 'pending' });
  }, 120_000);
});
