import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MIGRATION_LOCK,
  PRUNE_LOCK,
  RATE_LIMIT_OVERRIDE_LOCK,
  SIGNING_KEY_LOCK,
  tryWithAdvisoryLock,
  withAdvisoryLock,
} from '../../src/db/advisory-locks.js';
import { pruneOnce } from '../../src/domain/upkeep/pruning.js';
import { loadKeyRing } from '../../src/domain/tokens/signing-key-store.js';
import { openTestDatabase, type TestDatabase } from '../support/test-database.js';

const NOW = new Date('2026-11-22T10:00:00Z');
/** Holding a lock means holding a transaction open: PGlite's one connection would wait on itself. */
const onPostgres = it.skipIf(!process.env.DATABASE_URL);

/** Holds `key` in a transaction (as another instance would) until the returned release is called. */
async function holdLock(database: TestDatabase, key: number): Promise<{ release: () => void; done: Promise<void> }> {
  let release!: () => void;
  let taken!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const isTaken = new Promise<void>((resolve) => (taken = resolve));
  const done = withAdvisoryLock(database.db, key, async () => {
    taken();
    await held;
  });
  await isTaken;
  return { release, done };
}

describe('advisory locks: transaction-scoped, one id per use', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.close());

  it('migrations, signing keys, pruning and override changes each have their own id', () => {
    expect(new Set([MIGRATION_LOCK, SIGNING_KEY_LOCK, PRUNE_LOCK, RATE_LIMIT_OVERRIDE_LOCK]).size).toBe(4);
  });

  it('the lock ends with its transaction, also when the work fails', async () => {
    await expect(withAdvisoryLock(database.db, PRUNE_LOCK, () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(await tryWithAdvisoryLock(database.db, PRUNE_LOCK, async () => 'ran')).toBe('ran');
    expect(await withAdvisoryLock(database.db, PRUNE_LOCK, async () => 'ran again')).toBe('ran again');
  });

  onPostgres('a try while another transaction holds the lock answers undefined without running', async () => {
    const other = await holdLock(database, PRUNE_LOCK);
    try {
      let ran = false;
      expect(await tryWithAdvisoryLock(database.db, PRUNE_LOCK, async () => (ran = true))).toBeUndefined();
      expect(ran).toBe(false);
    } finally {
      other.release();
      await other.done;
    }
    expect(await tryWithAdvisoryLock(database.db, PRUNE_LOCK, async () => 'ran')).toBe('ran');
  });

  onPostgres(
    'an instance loading its signing keys does not wait for one that is pruning',
    { timeout: 15_000 },
    async () => {
      const pruning = await holdLock(database, PRUNE_LOCK);
      try {
        const ring = await loadKeyRing(database.db, undefined, NOW);
        expect(ring.publicJwks(NOW).keys).toHaveLength(1);
      } finally {
        pruning.release();
        await pruning.done;
      }
    },
  );

  onPostgres('a pruning pass is not skipped while another instance creates its signing key', async () => {
    const keyCreation = await holdLock(database, SIGNING_KEY_LOCK);
    try {
      expect(await pruneOnce(database.db, NOW)).toEqual({
        buckets: 0,
        sessions: 0,
        installCodes: 0,
        idempotencyKeys: 0,
        events: 0,
      });
    } finally {
      keyCreation.release();
      await keyCreation.done;
    }
  });
});
