import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { browserSessions } from '../../src/db/schema.js';
import { activateRequest, browserAt, issueCode, precheckRequest } from '../support/install-flow.js';
import { createTestApp, openSecondInstance, type TestApp } from '../support/test-app.js';
import { countsByLimit, FORGED_TOKEN, issueFrom, statuses, UNKNOWN_CODE } from './rate-limit-support.js';

describe('limits under real concurrency', () => {
  let t: TestApp;
  /** A second instance: on PostgreSQL its own connection pool, as another server would have. */
  let other: TestApp;
  let closeOther: () => Promise<void>;
  beforeAll(async () => {
    t = await createTestApp();
    ({ app: other, close: closeOther } = await openSecondInstance(t));
  });
  beforeEach(async () => {
    await t.database.reset();
    t.clock.set('2026-11-22T10:00:00Z');
  });
  afterAll(async () => {
    await closeOther?.();
    await t.close();
  });

  it('50 concurrent issues in one session admit exactly 2', async () => {
    const browser = await browserAt(t, '203.0.113.10', 'ua-1');
    const responses = await Promise.all(Array.from({ length: 50 }, () => issueFrom(t, browser)));
    expect(statuses(responses)).toEqual({ 201: 2, 429: 48 });
    expect(await countsByLimit(t, 'issue')).toEqual({
      'issue-ip-hour': 2,
      'issue-ip-day': 2,
      'issue-session-hour': 2,
      'issue-fingerprint-day': 2,
    });
  });

  it('20 concurrent issues from one IP in 20 sessions admit exactly 3, each counted in all four limits', async () => {
    const browsers = [];
    for (let i = 0; i < 20; i++) browsers.push(await browserAt(t, '203.0.113.10', `ua-${i}`));
    const responses = await Promise.all(browsers.map((b) => issueFrom(t, b)));
    expect(statuses(responses)).toEqual({ 201: 3, 429: 17 });
    expect(await countsByLimit(t, 'issue')).toEqual({
      'issue-ip-hour': 3,
      'issue-ip-day': 3,
      'issue-session-hour': 3,
      'issue-fingerprint-day': 3,
    });
  });

  it('two app instances on one database together admit exactly 2 issues of one session', async () => {
    const browser = await browserAt(t, '203.0.113.10', 'ua-1');
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => issueFrom(i % 2 ? other : t, browser)));
    expect(statuses(responses)).toEqual({ 201: 2, 429: 38 });
    expect((await countsByLimit(t, 'issue'))['issue-session-hour']).toBe(2);
  });

  it('two app instances together create exactly 30 sessions for 40 concurrent cookieless page loads from one IP', async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? other : t).request('/slowdns', {}, '203.0.113.10')),
    );
    expect(statuses(responses)).toEqual({ 200: 30, 429: 10 });
    expect(await t.database.db.select().from(browserSessions)).toHaveLength(30);
    expect(await countsByLimit(t)).toEqual({ 'session-ip-hour': 30 });
  });

  it('two app instances together admit exactly 10 prechecks of a real code for one machine from many IPs', async () => {
    const code = await issueCode(t);
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => precheckRequest(i % 2 ? other : t, code, {}, `198.51.100.${i + 1}`)),
    );
    expect(statuses(responses)).toEqual({ 200: 10, 429: 20 });
    expect(await countsByLimit(t, 'precheck')).toEqual({ 'precheck-ip-day': 10, 'precheck-machine-day': 10 });
  });

  it('two app instances together admit exactly 5 activates from one IP for many machines', async () => {
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        activateRequest(
          i % 2 ? other : t,
          UNKNOWN_CODE,
          FORGED_TOKEN,
          { machine_id: i.toString(16).padStart(32, '0') },
          '203.0.113.10',
        ),
      ),
    );
    expect(statuses(responses)).toEqual({ 401: 5, 429: 25 });
    // Bad tokens are counted per IP only.
    expect(await countsByLimit(t)).toEqual({ 'activate-ip-day': 5 });
  });
});
