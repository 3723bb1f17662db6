import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { rateLimitBuckets } from '../../db/schema.js';
import { sha256Hex } from '../secret-hash.js';
import { bucketEnd, bucketStart, policiesFor, secondsToBucketEnd, type RateLimitedRoute, type RateLimitPolicy, type RateLimitSubject } from './policies.js';

/** One limit to count this request in, and who it is counted for (an address key, a session hash…). */
export interface RateLimitCheck {
  policy: RateLimitPolicy;
  subject: string;
}

/** Where one policy stands after this request: what the `RateLimit` header reports. */
export interface PolicyState {
  policy: RateLimitPolicy;
  remaining: number;
  /** The end of the current bucket, and the whole seconds from now to it. */
  resetAt: Date;
  resetSeconds: number;
  /** This policy's bucket was already full: the request is refused because of it. */
  exhausted: boolean;
}

export type RateLimitDecision =
  | { admitted: true; states: PolicyState[] }
  | { admitted: false; states: PolicyState[]; /** the exhausted policy that resets last */ blocking: PolicyState };

/** Subjects are stored only as SHA-256, salted by the limit name so one subject's rows cannot be linked across limits. */
export function rateLimitSubjectHash(policyName: string, subject: string): string {
  return sha256Hex(`${policyName}\n${subject}`);
}

/** Thrown inside the transaction to roll every increment back. */
class Refused extends Error {
  constructor(readonly counts: Map<string, number>) {
    super('rate limit exceeded');
  }
}

/**
 * Counts the request in every applicable bucket, or in none. One upsert increments all the buckets;
 * if any of them went over its quota the transaction rolls back, so a refused request uses up no
 * budget anywhere. The upsert takes each bucket's row lock in one fixed order (limit name, subject
 * hash), so concurrent requests, on this instance or another, queue on the same rows and never
 * deadlock, and exactly `quota` of them get in.
 */
export async function consumeRateLimits(db: Database, checks: RateLimitCheck[], now: Date): Promise<RateLimitDecision> {
  if (checks.length === 0) return { admitted: true, states: [] };
  const rows = checks
    .map((check) => ({
      limitName: check.policy.name,
      subjectHash: rateLimitSubjectHash(check.policy.name, check.subject),
      bucketStart: bucketStart(now, check.policy.windowSeconds),
      count: 1,
    }))
    .sort((a, b) => (a.limitName === b.limitName ? compare(a.subjectHash, b.subjectHash) : compare(a.limitName, b.limitName)));

  let counts: Map<string, number>;
  let admitted = true;
  try {
    counts = await db.transaction(async (tx) => {
      const after = await tx
        .insert(rateLimitBuckets)
        .values(rows)
        .onConflictDoUpdate({
          target: [rateLimitBuckets.limitName, rateLimitBuckets.subjectHash, rateLimitBuckets.bucketStart],
          set: { count: sql`${rateLimitBuckets.count} + 1` },
        })
        .returning({ limitName: rateLimitBuckets.limitName, count: rateLimitBuckets.count });
      const byName = new Map(after.map((r) => [r.limitName, r.count]));
      if (checks.some((check) => byName.get(check.policy.name)! > check.policy.quota)) throw new Refused(byName);
      return byName;
    });
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    counts = error.counts;
    admitted = false;
  }

  const states = checks.map((check): PolicyState => {
    const countedNow = counts.get(check.policy.name)!;
    // Refused: the increment was rolled back, so the bucket holds one less than the upsert saw.
    const used = admitted ? countedNow : countedNow - 1;
    return {
      policy: check.policy,
      remaining: Math.max(0, check.policy.quota - used),
      resetAt: bucketEnd(now, check.policy.windowSeconds),
      resetSeconds: secondsToBucketEnd(now, check.policy.windowSeconds),
      exhausted: !admitted && countedNow > check.policy.quota,
    };
  });
  if (admitted) return { admitted: true, states };
  const blocking = states.filter((s) => s.exhausted).reduce((a, b) => (b.resetSeconds > a.resetSeconds ? b : a));
  return { admitted: false, states, blocking };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The checks of one route: each of its policies, counted for the subject of that policy's kind. */
export function checksFor(route: RateLimitedRoute, subjects: Partial<Record<RateLimitSubject, string>>): RateLimitCheck[] {
  return policiesFor(route).map((policy) => {
    const subject = subjects[policy.subject];
    if (subject === undefined) throw new Error(`no ${policy.subject} subject for ${policy.name}`);
    return { policy, subject };
  });
}
