import type { Database } from '../../db/database.js';
import type { KeyedHashes } from '../tokens/keyed-hashes.js';
import { readBucketCounts } from '../rate-limits/limiter.js';
import type { AppliedQuota, OverrideTable } from '../rate-limits/overrides.js';
import { bucketEnd, bucketStart, rateLimitPolicies, type RateLimitPolicy } from '../rate-limits/policies.js';

/** Where one subject stands in one limit: its current bucket, what it used, and the quota that applies (and why). */
export interface RateLimitUsage {
  policy: RateLimitPolicy;
  bucketStart: Date;
  resetsAt: Date;
  used: number;
  applied: AppliedQuota;
}

/**
 * What `subject` (a per-IP subject key or a machine id) has used in the current bucket of every limit
 * counted per `kind`, and the quota each bucket gets from `overrides` at `now`: one statement that
 * reads the buckets the limiter would count, by the limiter's own hashing (`hashes`), counting nothing.
 */
export async function readRateLimitUsage(
  db: Database,
  {
    kind,
    subject,
    overrides,
    hashes,
    now,
  }: { kind: 'ip' | 'machine'; subject: string; overrides: OverrideTable; hashes: KeyedHashes; now: Date },
): Promise<RateLimitUsage[]> {
  const checks = rateLimitPolicies
    .filter((policy) => policy.subject === kind)
    .map((policy) => ({ policy, subject, applied: overrides.quotaFor(policy, subject, now) }));
  const counts = await readBucketCounts(
    db,
    checks.map(({ policy, applied }) => ({
      policy,
      subject,
      subjectHash: hashes.rateLimitSubject(policy.name, subject),
      quota: applied.quota,
    })),
    now,
  );
  return checks.map(({ policy, applied }) => ({
    policy,
    bucketStart: bucketStart(now, policy.windowSeconds),
    resetsAt: bucketEnd(now, policy.windowSeconds),
    used: counts.get(policy.name) ?? 0,
    applied,
  }));
}
