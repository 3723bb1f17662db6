import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import {
  OVERRIDES_MAX_AGE_SECONDS,
  OVERRIDES_REFRESH_AFTER_SECONDS,
  RateLimitOverrides,
} from '../../src/domain/rate-limits/override-cache.js';
import { ADMIN_TOKEN } from '../admin/admin-requests.js';
import { issueCode, precheckRequest, randomMachine } from '../support/install-flow.js';
import { buildTestApp, createTestApp, useTestApp, type TestApp } from '../support/test-app.js';
import { TEST_EPOCH, TestClock } from '../support/test-clock.js';
import type { TestDatabase } from '../support/test-database.js';
import { setOverride, removeOverride, usageOf } from './override-support.js';
import { expectRateLimited, issueFromNewBrowser, parseRateLimit } from './rate-limit-support.js';

let browsers = 0;
/** Issues from `address` in a new browser each time, so only the per-IP limits can refuse it. */
const issueFrom = (t: TestApp, address: string) => issueFromNewBrowser(t, address, `ua-${++browsers}`);

async function issueStatuses(t: TestApp, address: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await issueFrom(t, address)).status);
  return statuses;
}

describe("rate-limit overrides change a bucket's quota, never the counting", () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('an override of issue-ip-hour to 5 lets a 4th and 5th code through from one address and refuses the 6th', async () => {
    expect(await issueStatuses(t, '203.0.113.10', 3)).toEqual([201, 201, 201]);
    await expectRateLimited(await issueFrom(t, '203.0.113.10'), 'issue-ip-hour', 3600);

    await setOverride(t, { subject: 'ip', value: '203.0.113.10', limit_name: 'issue-ip-hour', limit: 5 });
    const fourth = await issueFrom(t, '203.0.113.10');
    expect(fourth.status).toBe(201);
    expect(fourth.headers.get('ratelimit-policy')).toContain('"issue-ip-hour";q=5;w=3600');
    expect(parseRateLimit(fourth.headers.get('ratelimit'))['issue-ip-hour']).toEqual({ r: 1, t: 3600 });
    expect((await issueFrom(t, '203.0.113.10')).status).toBe(201);
    const sixth = await issueFrom(t, '203.0.113.10');
    expect(sixth.headers.get('ratelimit-policy')).toContain('"issue-ip-hour";q=5;w=3600');
    await expectRateLimited(sixth, 'issue-ip-hour', 3600, '5 install code requests per IP address per UTC hour');
    // Another address keeps the default.
    expect(await issueStatuses(t, '198.51.100.7', 4)).toEqual([201, 201, 201, 429]);
  });

  it('a lowering override refuses earlier, also once a bucket already holds more than it allows', async () => {
    await setOverride(t, { subject: 'ip', value: '203.0.113.10', limit_name: 'issue-ip-hour', limit: 1 });
    expect(await issueStatuses(t, '203.0.113.10', 2)).toEqual([201, 429]);

    expect(await issueStatuses(t, '203.0.113.20', 2)).toEqual([201, 201]);
    await setOverride(t, { subject: 'ip', value: '203.0.113.20', limit_name: 'issue-ip-hour', limit: 1 });
    const refused = await issueFrom(t, '203.0.113.20');
    await expectRateLimited(refused, 'issue-ip-hour', 3600);
    expect(refused.headers.get('ratelimit-policy')).toContain('"issue-ip-hour";q=1;w=3600');
  });

  it('an expired override stops applying at its expires_at, on the clock alone', async () => {
    await setOverride(t, {
      subject: 'ip',
      value: '203.0.113.10',
      limit_name: 'issue-ip-hour',
      limit: 5,
      expires_at: '2026-11-22T10:00:05+00:00',
    });
    expect(await issueStatuses(t, '203.0.113.10', 4)).toEqual([201, 201, 201, 201]);
    t.clock.set('2026-11-22T10:00:04.999Z');
    expect((await issueFrom(t, '203.0.113.10')).status).toBe(201);
    // Five seconds on: the copy in memory still holds it (no read yet), and it no longer applies.
    t.clock.set('2026-11-22T10:00:05Z');
    const refused = await issueFrom(t, '203.0.113.10');
    await expectRateLimited(refused, 'issue-ip-hour', 3595);
    expect(refused.headers.get('ratelimit-policy')).toContain('"issue-ip-hour";q=3;w=3600');
  });

  it('a CIDR override applies to an address inside the network and not to one outside it', async () => {
    await setOverride(t, { subject: 'cidr', value: '203.0.113.0/24', limit_name: 'issue-ip-hour', limit: 5 });
    expect(await issueStatuses(t, '203.0.113.77', 6)).toEqual([201, 201, 201, 201, 201, 429]);
    // Each address inside has a bucket of its own, with the network's quota.
    expect(await issueStatuses(t, '203.0.113.78', 5)).toEqual([201, 201, 201, 201, 201]);
    expect(await issueStatuses(t, '203.0.114.1', 4)).toEqual([201, 201, 201, 429]);
  });

  it('the most specific override wins: an address before a network, a narrower network before a wider one', async () => {
    await setOverride(t, { subject: 'cidr', value: '203.0.113.0/24', limit_name: 'issue-ip-hour', limit: 6 });
    await setOverride(t, { subject: 'cidr', value: '203.0.113.0/28', limit_name: 'issue-ip-hour', limit: 5 });
    const single = await setOverride(t, {
      subject: 'ip',
      value: '203.0.113.10',
      limit_name: 'issue-ip-hour',
      limit: 1,
    });
    expect(await issueStatuses(t, '203.0.113.10', 2)).toEqual([201, 429]);
    expect(await issueStatuses(t, '203.0.113.11', 6)).toEqual([201, 201, 201, 201, 201, 429]);
    expect(await issueStatuses(t, '203.0.113.100', 7)).toEqual([201, 201, 201, 201, 201, 201, 429]);

    // Removed, the address falls back to the next most specific: its /28.
    expect((await removeOverride(t, single.rate_limit_override_id, 'Lab over')).status).toBe(200);
    expect(await issueStatuses(t, '203.0.113.10', 5)).toEqual([201, 201, 201, 201, 429]);
  });

  it('an IPv6 address sets the quota of its /64 (the unit IPv6 clients are counted by), and of no other /64', async () => {
    const override = await setOverride(t, {
      subject: 'ip',
      value: '2001:DB8:1:2:0:0:0:7',
      limit_name: 'issue-ip-hour',
      limit: 4,
    });
    expect(override).toMatchObject({ value: '2001:db8:1:2::7', applies_to: '2001:db8:1:2::/64' });
    expect(await issueStatuses(t, '2001:db8:1:2::99', 2)).toEqual([201, 201]);
    expect(await issueStatuses(t, '2001:db8:1:2:ffff::1', 3)).toEqual([201, 201, 429]);
    expect(await issueStatuses(t, '2001:db8:1:3::7', 4)).toEqual([201, 201, 201, 429]);
  });

  it('a machine override sets the per-machine limits of that machine', async () => {
    const { machine_id } = randomMachine();
    await setOverride(t, { subject: 'machine', value: machine_id, limit_name: 'precheck-machine-day', limit: 12 });
    // The machine's budget is spent only by prechecks of a real code (an unknown one counts per IP alone).
    const code = await issueCode(t);
    const precheck = (i: number) => precheckRequest(t, code, { ...randomMachine(), machine_id }, `198.51.100.${i}`);
    const statuses: number[] = [];
    for (let i = 1; i <= 13; i++) statuses.push((await precheck(i)).status);
    expect(statuses).toEqual([...Array(12).fill(200), 429]);
    expect((await usageOf(t, { machine: machine_id })).limits).toEqual([
      expect.objectContaining({
        limit_name: 'precheck-machine-day',
        used: 12,
        limit: 12,
        default_limit: 10,
        remaining: 0,
        override: expect.objectContaining({ subject: 'machine', value: machine_id }),
      }),
      expect.objectContaining({
        limit_name: 'activate-machine-day',
        used: 0,
        limit: 5,
        default_limit: 5,
        override: null,
      }),
    ]);
  });

  it('the usage of an address says each bucket, what it used and which override sets its quota', async () => {
    await setOverride(t, {
      subject: 'cidr',
      value: '203.0.113.0/24',
      limit_name: 'issue-ip-hour',
      limit: 20,
      reason: 'Campus NAT during the workshop.',
    });
    t.clock.set('2026-11-22T10:30:00Z');
    expect(await issueStatuses(t, '203.0.113.10', 2)).toEqual([201, 201]);
    const usage = await usageOf(t, { ip: '203.0.113.10' });
    expect(usage).toMatchObject({ subject: 'ip', value: '203.0.113.10', counted_as: '203.0.113.10' });
    const byName = Object.fromEntries(usage.limits.map((l) => [l.limit_name, l]));
    expect(Object.keys(byName)).toEqual([
      'session-ip-hour',
      'issue-ip-hour',
      'issue-ip-day',
      'precheck-ip-day',
      'activate-ip-day',
      'register-ip-hour',
      'console-sign-in-ip-hour',
    ]);
    expect(byName['issue-ip-hour']).toEqual({
      limit_name: 'issue-ip-hour',
      window_seconds: 3600,
      bucket_start: '2026-11-22T10:00:00+00:00',
      resets_at: '2026-11-22T11:00:00+00:00',
      used: 2,
      limit: 20,
      default_limit: 3,
      remaining: 18,
      override: expect.objectContaining({
        subject: 'cidr',
        value: '203.0.113.0/24',
        reason: 'Campus NAT during the workshop.',
        created_by: 'root',
      }),
    });
    expect(byName['issue-ip-day']).toMatchObject({ used: 2, limit: 10, override: null });
    expect(byName['session-ip-hour']).toMatchObject({ used: 2, limit: 30, override: null });
    expect((await usageOf(t, { ip: '2001:db8:1:2::7' })).counted_as).toBe('2001:db8:1:2::/64');
  });
});

describe('two instances on one database', () => {
  let a: TestApp;
  /** Another server: its own copy of the overrides, its own clock and, on PostgreSQL, its own connection pool. */
  let b: TestApp;
  let bDatabase: TestDatabase | undefined;
  beforeAll(async () => {
    a = await createTestApp({ ADMIN_TOKEN });
    if (a.database.url) {
      const handle = await openDatabase({ databaseUrl: a.database.url, dataDir: 'unused' });
      bDatabase = { ...handle, url: a.database.url, reset: a.database.reset };
    }
    b = buildTestApp(bDatabase ?? a.database, a.keys, { ADMIN_TOKEN }, new TestClock());
  });
  beforeEach(async () => {
    await a.reset();
    b.clock.set(TEST_EPOCH);
    b.rateLimitOverrides.invalidate();
  });
  afterAll(async () => {
    await bDatabase?.close();
    await a.close();
  });

  it(`an override set through one instance is in force on the other within ${OVERRIDES_MAX_AGE_SECONDS} s, and so is its removal`, async () => {
    expect(await issueStatuses(b, '203.0.113.10', 4)).toEqual([201, 201, 201, 429]);
    const override = await setOverride(a, {
      subject: 'ip',
      value: '203.0.113.10',
      limit_name: 'issue-ip-hour',
      limit: 5,
    });
    // Not a read per request: b goes on with the copy it read at 10:00:00 ...
    expect((await issueFrom(b, '203.0.113.10')).status).toBe(429);
    // ... which it reads again once it is 8 s old (or sooner, in the background: below).
    b.clock.advance(OVERRIDES_MAX_AGE_SECONDS);
    expect(await issueStatuses(b, '203.0.113.10', 3)).toEqual([201, 201, 429]);

    expect((await removeOverride(a, override.rate_limit_override_id, 'NAT gone')).status).toBe(200);
    b.clock.advance(OVERRIDES_MAX_AGE_SECONDS);
    const refused = await issueFrom(b, '203.0.113.10');
    await expectRateLimited(refused, 'issue-ip-hour', 3600 - 2 * OVERRIDES_MAX_AGE_SECONDS);
    expect(refused.headers.get('ratelimit-policy')).toContain('"issue-ip-hour";q=3;w=3600');
  });

  it(`a copy ${OVERRIDES_REFRESH_AFTER_SECONDS} s old is read again in the background: the request goes on with it, the next one has the new`, async () => {
    const failures: unknown[] = [];
    const cache = new RateLimitOverrides(b.database.db, b.clock, (error) => failures.push(error));
    const first = await cache.current();
    expect(await cache.current()).toBe(first);
    await setOverride(a, { subject: 'ip', value: '203.0.113.10', limit_name: 'issue-ip-hour', limit: 5 });
    b.clock.advance(OVERRIDES_REFRESH_AFTER_SECONDS - 1);
    expect(await cache.current()).toBe(first);
    b.clock.advance(1);
    // This request is not held up by the read it starts.
    expect(await cache.current()).toBe(first);
    const fresh = await cache.refresh();
    expect(fresh).not.toBe(first);
    expect(await cache.current()).toBe(fresh);
    expect(fresh.overrides.map((o) => [o.value, o.limitName, o.quota])).toEqual([['203.0.113.10', 'issue-ip-hour', 5]]);
    expect(failures).toEqual([]);
  });
});
