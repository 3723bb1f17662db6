import { expect } from 'vitest';
import { rateLimitBuckets } from '../../src/db/schema.js';
import { policiesFor, type RateLimitedRoute } from '../../src/domain/rate-limits/policies.js';
import { type Browser, browserAt } from '../support/install-flow.js';
import type { TestApp } from '../support/test-app.js';

/** Well-formed but never issued: the limits come before the code is looked up, so it still counts. */
export const UNKNOWN_CODE = 'SDNS-SD-000000-000000-000000';
/** Well-formed but unsigned: activate counts it per IP only, then answers 401. */
export const FORGED_TOKEN = 'eyJhbGciOiJFZERTQSJ9.e30.c2ln';

/**
 * Every bucket row (or those of one route's limits), in a stable order, for tests that assert what was
 * (not) counted. Opening a browser counts `session-ip-hour`: issue tests look at the issue limits only.
 */
export async function bucketRows(t: TestApp, route?: RateLimitedRoute) {
  const names = route && new Set<string>(policiesFor(route).map((p) => p.name));
  const rows = await t.database.db.select().from(rateLimitBuckets);
  return rows
    .filter((r) => !names || names.has(r.limitName))
    .map((r) => ({
      limitName: r.limitName,
      subjectHash: r.subjectHash,
      bucketStart: r.bucketStart.toISOString(),
      count: r.count,
    }))
    .sort((a, b) =>
      `${a.limitName}${a.subjectHash}${a.bucketStart}`.localeCompare(`${b.limitName}${b.subjectHash}${b.bucketStart}`),
    );
}

/** Total count per limit name (of every limit, or of one route's) across subjects and buckets. */
export async function countsByLimit(t: TestApp, route?: RateLimitedRoute): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  for (const row of await bucketRows(t, route)) totals[row.limitName] = (totals[row.limitName] ?? 0) + row.count;
  return totals;
}

export function issueFrom(
  t: TestApp,
  browser: Browser,
  init: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { cookie: browser.cookie, ...browser.headers, ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return t.request(
    '/api/v2/slowdns/code/issue',
    { method: 'POST', headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) },
    browser.address,
  );
}

/** A new browser (own session, own User-Agent) at `address`, issuing once. */
export async function issueFromNewBrowser(t: TestApp, address: string, userAgent: string): Promise<Response> {
  return issueFrom(t, await browserAt(t, address, userAgent));
}

/** The `"name";r=…;t=…` items of a RateLimit header, by policy name. */
export function parseRateLimit(header: string | null): Record<string, { r: number; t: number }> {
  const items: Record<string, { r: number; t: number }> = {};
  for (const item of (header ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const match = /^"([^"]+)";r=(\d+);t=(\d+)$/.exec(item);
    if (!match) throw new Error(`not a RateLimit item: ${item}`);
    items[match[1]!] = { r: Number(match[2]), t: Number(match[3]) };
  }
  return items;
}

/** A 429 of `policy`: the envelope, Retry-After, and both headers naming it with nothing remaining. */
export async function expectRateLimited(
  res: Response,
  policy: string,
  retryAfter: number,
  retryText?: string,
): Promise<void> {
  const body = await res.json();
  expect({ status: res.status, code: body.error?.code, retryAfter: res.headers.get('retry-after') }).toEqual({
    status: 429,
    code: 'rate_limit_exceeded',
    retryAfter: String(retryAfter),
  });
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.message).toContain(`Limit ${policy} reached`);
  if (retryText) expect(body.error.message).toContain(retryText);
  expect(res.headers.get('ratelimit-policy')).toContain(`"${policy}";q=`);
  expect(parseRateLimit(res.headers.get('ratelimit'))[policy]).toEqual({ r: 0, t: retryAfter });
}

/** How many of `responses` answered each status: `{ 200: 3, 429: 5 }`. */
export const statuses = (responses: Response[]) => {
  const tally: Record<number, number> = {};
  for (const r of responses) tally[r.status] = (tally[r.status] ?? 0) + 1;
  return tally;
};
