import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { pruneOnce } from '../../src/domain/upkeep/pruning.js';
import { loadKeyRing } from '../../src/domain/tokens/signing-key-store.js';
import {
  activateRequest,
  confirmRequest,
  freshClient,
  issueCode,
  precheckToken,
  randomMachine,
} from '../support/install-flow.js';
import { describeBehindPooler } from '../support/pooler.js';
import { buildTestApp, testKeyRing, type TestApp } from '../support/test-app.js';
import { openTestDatabase, type TestDatabase } from '../support/test-database.js';

const NOW = new Date('2026-11-22T10:00:00Z');

/** Rejects when `promise` has not settled within `ms`: a start that waits on a stranded lock would never settle. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** What src/main.ts does before it listens: open the database, migrate, load (or make) the signing keys. */
async function startInstance(url: string, reset: () => Promise<void>): Promise<TestApp> {
  const handle = await openDatabase({ databaseUrl: url, dataDir: 'unused' });
  await migrateDatabase(handle.db);
  const keys = await loadKeyRing(handle.db, undefined, NOW);
  const database: TestDatabase = { ...handle, url, reset };
  return buildTestApp(database, keys);
}

interface Outcome {
  activationId?: string;
  activated: boolean;
  confirmed: boolean;
}

/** Issue → precheck → activate → confirm, as one installer does it; what the service answered. */
async function lifecycle(t: TestApp): Promise<Outcome> {
  const onMachine = randomMachine();
  const code = await issueCode(t);
  const res = await activateRequest(t, code, await precheckToken(t, code, onMachine), onMachine, freshClient().address);
  if (res.status !== 200) return { activated: false, confirmed: false };
  const { data } = await res.json();
  const confirm = await confirmRequest(t, data.activation_id, data.install_token);
  return { activationId: data.activation_id, activated: true, confirmed: confirm.status === 200 };
}

describeBehindPooler('behind a transaction-mode pooler (PgBouncer)', (poolerUrl) => {
  let t: TestApp;
  beforeAll(async () => {
    t = buildTestApp(await openTestDatabase(poolerUrl), await testKeyRing());
  });
  afterAll(() => t?.close());

  it('100 concurrent lifecycles lose nothing: every activation answered 200 is stored, every confirm answered 200 is confirmed', {
    timeout: 300_000,
  }, async () => {
    const outcomes = await Promise.all(Array.from({ length: 100 }, () => lifecycle(t)));
    // Read back on a connection of its own, without named statements, whatever the app's driver does.
    const check = postgres(t.database.url!, { max: 1, prepare: false, onnotice: () => {} });
    try {
      const rows = await check<{ id: string; status: string }[]>`select id, status from activations`;
      const stored = new Map(rows.map((r) => [r.id, r.status]));
      const activated = outcomes.filter((o) => o.activated);
      const lost = activated.filter((o) => !stored.has(o.activationId!));
      const unconfirmed = outcomes.filter((o) => o.confirmed && stored.get(o.activationId!) !== 'confirmed');
      expect({
        answered200: activated.length,
        lost: lost.length,
        confirmedButNotStored: unconfirmed.length,
        confirmed: outcomes.filter((o) => o.confirmed).length,
      }).toEqual({
        answered200: 100,
        lost: 0,
        confirmedButNotStored: 0,
        confirmed: 100,
      });
      expect(stored.size).toBe(100);
    } finally {
      await check.end();
    }
  });

  it('a second and a third instance start (migrations, signing key) while the first serves, and all three prune in turn', {
    timeout: 300_000,
  }, async () => {
    const url = t.database.url!;
    const first = await within(60_000, 'the first instance', startInstance(url, t.database.reset));
    const others: TestApp[] = [];
    try {
      const serving = Promise.all(Array.from({ length: 30 }, () => lifecycle(first)));
      others.push(
        ...(await within(
          60_000,
          'the second and third instances',
          Promise.all([startInstance(url, t.database.reset), startInstance(url, t.database.reset)]),
        )),
      );
      expect((await serving).filter((o) => o.confirmed)).toHaveLength(30);
      const [second, third] = others as [TestApp, TestApp];
      // One signing key for all: a token made by one instance is good on the others.
      expect(new Set([first, second, third].map((i) => i.keys.signing.kid)).size).toBe(1);
      const onMachine = randomMachine();
      const code = await issueCode(first);
      const activated = await activateRequest(
        third,
        code,
        await precheckToken(second, code, onMachine),
        onMachine,
        freshClient().address,
      );
      expect(activated.status).toBe(200);
      const { data } = await activated.json();
      expect((await confirmRequest(second, data.activation_id, data.install_token)).status).toBe(200);
      // No pruning lock is left behind on a pooled server connection: each pass runs, none is skipped.
      for (const instance of [first, second, third, first]) {
        expect(await within(30_000, 'a pruning pass', pruneOnce(instance.database.db, NOW))).toBeDefined();
      }
    } finally {
      for (const instance of [first, ...others]) await instance.database.close();
    }
  });
});
