import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { activations, browserSessions, events, installCodes, rateLimitBuckets } from '../../src/db/schema.js';
import { PRUNE_INTERVAL_MS, PRUNE_LOCK, pruneOnce, startPruning } from '../../src/domain/upkeep/pruning.js';
import { createLogger } from '../../src/logger.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const NOW = new Date('2026-11-22T10:00:00Z');
const at = (iso: string) => new Date(iso);

async function seed(t: TestApp): Promise<void> {
  const db = t.database.db;
  await db.insert(rateLimitBuckets).values(
    ['2026-11-19T00:00:00Z', '2026-11-20T09:00:00Z', '2026-11-20T11:00:00Z', '2026-11-22T09:00:00Z'].map((start) => ({
      limitName: 'issue-ip-hour',
      subjectHash: `subject-${start}`,
      bucketStart: at(start),
      count: 1,
    })),
  );
  await db.insert(browserSessions).values([
    { tokenHash: 'expired', createdAt: at('2026-11-22T08:00:00Z'), expiresAt: at('2026-11-22T09:00:00Z') },
    { tokenHash: 'valid', createdAt: at('2026-11-22T09:30:00Z'), expiresAt: at('2026-11-22T10:30:00Z') },
  ]);
  const code = (id: string, status: 'issued' | 'activated' | 'consumed', expiresAt: string) => ({
    id,
    codeHash: `hash-${id}`,
    hint: 'SDNS-SD-…000000',
    status,
    issuedAt: new Date(at(expiresAt).getTime() - 900_000),
    expiresAt: at(expiresAt),
  });
  await db
    .insert(installCodes)
    .values([
      code('unused-8-days', 'issued', '2026-11-14T09:00:00Z'),
      code('unused-6-days', 'issued', '2026-11-16T09:00:00Z'),
      code('released-8-days', 'issued', '2026-11-14T09:00:00Z'),
      code('consumed-8-days', 'consumed', '2026-11-14T09:00:00Z'),
    ]);
  await db.insert(activations).values({
    id: 'act_0000000000000001',
    installCodeId: 'released-8-days',
    status: 'released',
    hostname: 'vpn1.example.net',
    publicIp: '203.0.113.7',
    machineId: '4c4c4544003957108052b4c04f384833',
    sshFingerprint: 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
    requestedRef: 'main',
    installerVersion: '2026.11.20.1',
    installTokenJtiHash: 'jti-hash-1',
    installTokenExpiresAt: at('2026-11-14T09:50:00Z'),
    createdAt: at('2026-11-14T08:50:00Z'),
    releasedAt: at('2026-11-14T08:55:00Z'),
    codeRestored: true,
  });
  await db.insert(events).values(
    ['2026-08-23T09:00:00Z', '2026-08-24T11:00:00Z'].map((occurred) => ({
      type: 'install_code.issued',
      occurredAt: at(occurred),
      actor: 'browser' as const,
      data: {},
    })),
  );
}

async function remaining(t: TestApp) {
  const db = t.database.db;
  return {
    buckets: (await db.select().from(rateLimitBuckets)).map((b) => b.bucketStart.toISOString()).sort(),
    sessions: (await db.select().from(browserSessions)).map((s) => s.tokenHash).sort(),
    codes: (await db.select().from(installCodes)).map((c) => c.id).sort(),
    events: (await db.select().from(events)).map((e) => e.occurredAt.toISOString()),
  };
}

const afterPruning = {
  buckets: ['2026-11-20T11:00:00.000Z', '2026-11-22T09:00:00.000Z'],
  sessions: ['valid'],
  codes: ['consumed-8-days', 'released-8-days', 'unused-6-days'],
  events: ['2026-08-24T11:00:00.000Z'],
};

describe('pruning', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  beforeEach(async () => {
    await t.database.reset();
    await seed(t);
  });
  afterAll(() => t.close());

  it('deletes buckets older than two days, expired sessions, unused codes expired over 7 days ago and events over 90 days old, but no code an activation refers to', async () => {
    expect(await pruneOnce(t.database.db, NOW)).toEqual({
      buckets: 2,
      sessions: 1,
      installCodes: 1,
      idempotencyKeys: 0,
      events: 1,
    });
    expect(await remaining(t)).toEqual(afterPruning);
    expect(await pruneOnce(t.database.db, NOW)).toEqual({
      buckets: 0,
      sessions: 0,
      installCodes: 0,
      idempotencyKeys: 0,
      events: 0,
    });
  });

  it('keeps events for EVENT_RETENTION_DAYS', async () => {
    expect(await pruneOnce(t.database.db, NOW, 100)).toMatchObject({ events: 0 });
    expect(await pruneOnce(t.database.db, NOW, 80)).toMatchObject({ events: 2 });
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'on PostgreSQL skips the pass while another instance holds the pruning lock',
    async () => {
      // Another instance's pruning transaction, holding the lock until it ends.
      const holder = postgres(t.database.url!, { max: 1, prepare: false, onnotice: () => {} });
      try {
        await holder.begin(async (tx) => {
          await tx`select pg_advisory_xact_lock(${PRUNE_LOCK})`;
          expect(await pruneOnce(t.database.db, NOW)).toBeUndefined();
          expect((await remaining(t)).sessions).toEqual(['expired', 'valid']);
        });
        expect(await pruneOnce(t.database.db, NOW)).toEqual({
          buckets: 2,
          sessions: 1,
          installCodes: 1,
          idempotencyKeys: 0,
          events: 1,
        });
      } finally {
        await holder.end();
      }
    },
  );

  it('the interval prunes every 10 minutes and stop() waits for the pass in progress', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const lines: string[] = [];
      const schedule = startPruning(
        t.database.db,
        { now: () => NOW },
        createLogger('info', (line) => lines.push(line)),
      );
      await vi.advanceTimersByTimeAsync(PRUNE_INTERVAL_MS);
      await schedule.stop();
      expect(await remaining(t)).toEqual(afterPruning);
      expect(lines.map((l) => JSON.parse(l))).toEqual([
        expect.objectContaining({
          msg: 'partitions made ahead',
          created: expect.arrayContaining(['events_p20261122']),
        }),
        expect.objectContaining({ msg: 'pruned', buckets: 2, sessions: 1, installCodes: 1 }),
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
