import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { queryRows, testPgliteSeed } from '../support/test-database.js';

// PGlite's single-user PostgreSQL has no checkpointer: without one of ours it checkpointed only when
// it stopped, and its pg_wal (in memory for memory://) kept every write since the start.
describe('the embedded database vacuums and checkpoints while it runs', () => {
  it('a vacuum and a checkpoint follow writes, without the database stopping', async () => {
    const handle = await openDatabase({
      dataDir: 'memory://',
      pgliteSeed: await testPgliteSeed(),
      pgliteCheckpointIntervalMs: 100,
    });
    try {
      const checkpointLsn = async () =>
        (
          await queryRows<{ lsn: string }>(
            handle.db,
            sql`select checkpoint_lsn::text as lsn from pg_control_checkpoint()`,
          )
        )[0]!.lsn;
      const before = await checkpointLsn();
      await handle.db.execute(
        sql`insert into signing_keys (kid, private_jwk, created_at) values ('checkpoint-test', '{}', now())`,
      );
      await expect.poll(checkpointLsn, { timeout: 10_000, interval: 100 }).not.toBe(before);
      expect(await queryRows(handle.db, sql`select kid from signing_keys where kid = 'checkpoint-test'`)).toEqual([
        { kid: 'checkpoint-test' },
      ]);
      // And it vacuums (single-user mode has no autovacuum): the deleted row's room is reclaimed.
      await handle.db.execute(sql`delete from signing_keys where kid = 'checkpoint-test'`);
      const vacuumed = async () =>
        (
          await queryRows<{ vacuumed: boolean }>(
            handle.db,
            sql`select last_vacuum is not null as vacuumed from pg_stat_user_tables where relname = 'signing_keys'`,
          )
        )[0]?.vacuumed;
      await expect.poll(vacuumed, { timeout: 10_000, interval: 100 }).toBe(true);
    } finally {
      await handle.close();
    }
  });
});
