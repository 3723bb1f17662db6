import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import type { ReadReplica } from '../../src/db/read-replica.js';
import { replicaReads } from '../../src/db/read-routing.js';

// Which database a read goes to (src/db/read-routing.ts), with stand-ins for both: the real replica's
// behaviour is test/replica/read-replica.test.ts's.
const primary = { name: 'primary' } as unknown as Database;
const replicaDb = { name: 'replica' } as unknown as Database;
const nameOf = async (db: Database) => (db as unknown as { name: string }).name;

function fakeReplica(usable = true) {
  const replica = { db: replicaDb, usable, lagSeconds: 0.5, failures: 0, reportFailure: () => replica.failures++ };
  return replica as typeof replica & ReadReplica;
}

describe('read routing', () => {
  it('reads the replica while it is usable, the primary when it is not', async () => {
    const replica = fakeReplica();
    const reads = replicaReads({ primary, replica, now: () => 0 });
    expect(await reads.read(nameOf, 'ops')).toBe('replica');
    replica.usable = false;
    expect(await reads.read(nameOf, 'ops')).toBe('primary');
  });

  it("an operator's reads stay on the primary for 30 s after their own write, another operator's do not", async () => {
    let now = 0;
    const reads = replicaReads({ primary, replica: fakeReplica(), now: () => now });
    reads.wrote('alice');
    expect(await reads.read(nameOf, 'alice')).toBe('primary');
    expect(await reads.read(nameOf, 'bob')).toBe('replica');
    now = 29_999;
    expect(await reads.read(nameOf, 'alice')).toBe('primary');
    now = 30_000;
    expect(await reads.read(nameOf, 'alice')).toBe('replica');
  });

  it('a read cancelled on the replica by a conflict with recovery (40001) is run again on the primary', async () => {
    const replica = fakeReplica();
    const reads = replicaReads({ primary, replica, now: () => 0 });
    const conflict = Object.assign(new Error('canceling statement due to conflict with recovery'), { code: '40001' });
    const tried: string[] = [];
    const read = async (db: Database) => {
      tried.push(await nameOf(db));
      if (db === replicaDb) throw new Error('Failed query', { cause: conflict });
      return 'page';
    };
    expect(await reads.read(read)).toBe('page');
    expect(tried).toEqual(['replica', 'primary']);
    expect(replica.failures).toBe(0);
  });

  it('a read the unreachable replica fails is run on the primary and the replica is probed again', async () => {
    const replica = fakeReplica();
    const reads = replicaReads({ primary, replica, now: () => 0 });
    const lost = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5433'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
    });
    const read = async (db: Database) => {
      if (db === replicaDb) throw lost;
      return 'rows';
    };
    expect(await reads.read(read)).toBe('rows');
    expect(replica.failures).toBe(1);
  });

  it('an error of the read itself (not the replica) is not retried', async () => {
    const reads = replicaReads({ primary, replica: fakeReplica(), now: () => 0 });
    const tried: string[] = [];
    const bug = async (db: Database) => {
      tried.push(await nameOf(db));
      throw new TypeError('a bug');
    };
    await expect(reads.read(bug)).rejects.toThrow('a bug');
    expect(tried).toEqual(['replica']);
  });
});
