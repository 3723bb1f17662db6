import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_LOCK, PRUNE_LOCK, SIGNING_KEY_LOCK } from '../../src/db/advisory-locks.js';
import { pruneOnce } from '../../src/domain/pruning.js';
import { loadKeyRing } from '../../src/domain/signing-keys.js';
import { openTestDatabase, type TestDatabase } from '../support/test-database.js';

const NOW = new Date('2026-11-22T10:00:00Z');

/** Holds `key` (as another instance would) until the returned release is called. */
async function holdLock(database: TestDatabase, key: number): Promise<{ release: () => void; done: Promise<void> }> {
  let release!: () => void;
  let taken!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const isTaken = new Promise<void>((resolve) => (taken = resolve));
  const done = database.withAdvisoryLock(key, async () => {
    taken();
    await held;
  });
  await isTaken;
  return { release, done };
}

describe('advisory locks: one id per use', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.close());

  it('migrations, signing keys and pruning each have their own id', () => {
    expect(new Set([MIGRATION_LOCK, SIGNING_KEY_LOCK, PRUNE_LOCK]).size).toBe(3);
  });

  it('an instance loading its signing keys does not wait for one that is pruning', { timeout: 15_000 }, async () => {
    const pruning = await holdLock(database, PRUNE_LOCK);
    try {
      const ring = await loadKeyRing(database, undefined, NOW);
      expect(ring.publicJwks.keys).toHaveLength(1);
    } finally {
      pruning.release();
      await pruning.done;
    }
  });

  it('a pruning pass is not skipped while another instance creates its signing key', async () => {
    const keyCreation = await holdLock(database, SIGNING_KEY_LOCK);
    try {
      expect(await pruneOnce(database, NOW)).toEqual({ buckets: 0, sessions: 0, installCodes: 0 });
    } finally {
      keyCreation.release();
      await keyCreation.done;
    }
  });
});
