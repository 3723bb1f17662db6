import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { servers } from '../../src/db/schema.js';
import { CheckinBatcher, type CheckinItem } from '../../src/domain/servers/checkins.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import type { AgentReport } from '../../src/schemas/server.js';
import { expectRateLimited, parseRateLimit, statuses } from '../rate-limits/rate-limit-support.js';
import { expectError } from '../support/install-flow.js';
import { createTestApp, openSecondInstance, type TestApp } from '../support/test-app.js';
import { bearer, checkinRequest, type Registered, registeredServer, report, revokeRequest } from './agent-requests.js';

describe('check-ins made at the same time share one statement and keep their own outcomes', () => {
  let t: TestApp;
  /** A second instance: on PostgreSQL its own connection pool (and its own batches), as another server would have. */
  let other: TestApp;
  let closeOther: () => Promise<void>;
  beforeAll(async () => {
    t = await createTestApp();
    ({ app: other, close: closeOther } = await openSecondInstance(t));
  });
  /** The server has checked in `count` times in the hour from 10:00 (its bucket on its own row). */
  const countedThisHour = (serverId: string, count: number) =>
    t.database.db
      .update(servers)
      .set({ checkinBucketStart: new Date('2026-11-22T10:00:00.000Z'), checkinCount: count })
      .where(eq(servers.id, serverId));
  beforeEach(async () => {
    await t.reset();
    t.clock.set('2026-11-22T10:20:00.000Z');
  });
  afterAll(async () => {
    await closeOther?.();
    await t.close();
  });

  const rows = async () =>
    Object.fromEntries(
      (
        await t.database.db
          .select({
            id: servers.id,
            lastSeenAt: servers.lastSeenAt,
            lastReport: servers.lastReport,
            lastCheckinIp: servers.lastCheckinIp,
            checkinCount: servers.checkinCount,
            // Rows changed by one statement carry its transaction's id.
            writtenBy: sql<string>`xmin::text`,
          })
          .from(servers)
      ).map((r) => [r.id, r]),
    );

  it('active, revoked, unknown and refused bodies in one batch: each answered and recorded as if alone', async () => {
    const active: Registered[] = [];
    for (let i = 0; i < 4; i++) active.push(await registeredServer(t));
    const revoked = await registeredServer(t);
    const badBody = await registeredServer(t);
    await revokeRequest(t, bearer(revoked.agentToken));
    const before = await rows();
    t.clock.advance(60);

    const [revokedAnswer, unknownAnswer, badAnswer, ...activeAnswers] = await Promise.all([
      checkinRequest(t, bearer(revoked.agentToken), report, '198.51.100.99'),
      checkinRequest(t, bearer('no-such-agent-token'), report, '198.51.100.98'),
      checkinRequest(t, bearer(badBody.agentToken), { ...report, uptime_seconds: -1 }, '198.51.100.97'),
      ...active.map((s, i) =>
        checkinRequest(t, bearer(s.agentToken), { ...report, uptime_seconds: 1000 + i }, `198.51.100.${i + 1}`),
      ),
    ]);

    for (const answer of activeAnswers) {
      expect(answer.status).toBe(200);
      expect((await answer.json()).data.status).toBe('active');
      expect(parseRateLimit(answer.headers.get('ratelimit'))['checkin-server-hour']).toEqual({ r: 119, t: 2340 });
    }
    expect((await revokedAnswer.json()).data.status).toBe('revoked');
    await expectError(unknownAnswer, 401, 'agent_token_invalid');
    expect(parseRateLimit(badAnswer.headers.get('ratelimit'))['checkin-server-hour']).toEqual({ r: 119, t: 2340 });
    await expectError(badAnswer, 400, 'validation_failed');

    const after = await rows();
    for (const [i, s] of active.entries())
      expect(after[s.serverId]).toMatchObject({
        lastSeenAt: t.clock.now(),
        lastReport: { ...report, uptime_seconds: 1000 + i },
        lastCheckinIp: `198.51.100.${i + 1}`,
        checkinCount: 1,
      });
    // Counted, nothing recorded: the revoked server, and the server whose body was refused.
    for (const s of [revoked, badBody])
      expect(after[s.serverId]).toMatchObject({
        lastSeenAt: before[s.serverId]!.lastSeenAt,
        lastReport: before[s.serverId]!.lastReport,
        lastCheckinIp: null,
        checkinCount: 1,
      });
    // The four recorded check-ins (and the revoked one's count) were one statement.
    expect(new Set(active.map((s) => after[s.serverId]!.writtenBy)).size).toBe(1);
    expect(after[revoked.serverId]!.writtenBy).toBe(after[active[0]!.serverId]!.writtenBy);
  });

  it('two check-ins of one server at the same time are both counted, one statement after the other', async () => {
    const server = await registeredServer(t);
    const answers = await Promise.all([
      checkinRequest(t, bearer(server.agentToken)),
      checkinRequest(t, bearer(server.agentToken)),
    ]);
    expect(statuses(answers)).toEqual({ 200: 2 });
    expect(answers.map((a) => parseRateLimit(a.headers.get('ratelimit'))['checkin-server-hour']!.r).sort()).toEqual([
      118, 119,
    ]);
    expect((await rows())[server.serverId]!.checkinCount).toBe(2);
  });

  it('check-ins racing for the last of a bucket on two instances: exactly the quota gets in', async () => {
    const server = await registeredServer(t);
    await countedThisHour(server.serverId, 117);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => checkinRequest(i % 2 ? other : t, bearer(server.agentToken))),
    );
    expect(statuses(answers)).toEqual({ 200: 3, 429: 5 });
    for (const refused of answers.filter((a) => a.status === 429))
      await expectRateLimited(refused, 'checkin-server-hour', 2400);
    expect((await rows())[server.serverId]!.checkinCount).toBe(120);
  });

  it('a new hour starts a new bucket, and a check-in stamped with an older hour counts in the newer one', async () => {
    const server = await registeredServer(t);
    await countedThisHour(server.serverId, 120);
    await expectRateLimited(await checkinRequest(t, bearer(server.agentToken)), 'checkin-server-hour', 2400);
    t.clock.set('2026-11-22T11:00:00.000Z');
    expect((await checkinRequest(t, bearer(server.agentToken))).status).toBe(200);
    // An instance whose clock is a second behind, still in 10:00's hour.
    other.clock.set('2026-11-22T10:59:59.000Z');
    const late = await checkinRequest(other, bearer(server.agentToken));
    expect(late.status).toBe(200);
    const [row] = await t.database.db
      .select({ start: servers.checkinBucketStart, count: servers.checkinCount })
      .from(servers)
      .where(eq(servers.id, server.serverId));
    expect(row).toEqual({ start: new Date('2026-11-22T11:00:00.000Z'), count: 2 });
  });

  it('the batcher: check-ins handed over in one turn are one statement, a second of the same token the next one', async () => {
    const [a, b, c] = [await registeredServer(t), await registeredServer(t), await registeredServer(t)];
    const batcher = new CheckinBatcher(t.database.db);
    const now = t.clock.now();
    const item = (s: Registered, uptime: number): CheckinItem => ({
      tokenHash: sha256Hex(s.agentToken),
      now,
      bucketStart: new Date('2026-11-22T10:00:00.000Z'),
      quota: 120,
      report: { ...(report as AgentReport), uptime_seconds: uptime },
      address: null,
    });
    const outcomes = await Promise.all([
      batcher.checkIn(item(a, 1)),
      batcher.checkIn(item(b, 2)),
      batcher.checkIn(item(a, 3)),
      batcher.checkIn(item(c, 4)),
      batcher.checkIn({ ...item(c, 5), tokenHash: sha256Hex('no-such-agent-token') }),
    ]);
    expect(outcomes).toEqual([
      { found: true, admitted: true, count: 1, status: 'active', recorded: true },
      { found: true, admitted: true, count: 1, status: 'active', recorded: true },
      { found: true, admitted: true, count: 2, status: 'active', recorded: true },
      { found: true, admitted: true, count: 1, status: 'active', recorded: true },
      { found: false },
    ]);
    const after = await rows();
    expect(after[b.serverId]!.writtenBy).toBe(after[c.serverId]!.writtenBy);
    // a's second check-in came after the first statement, and was recorded last.
    expect(after[a.serverId]!.writtenBy).not.toBe(after[b.serverId]!.writtenBy);
    expect(after[a.serverId]!.lastReport).toMatchObject({ uptime_seconds: 3 });
  });
});
