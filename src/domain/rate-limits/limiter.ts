import type { Database } from '../../db/database.js';
import { composedStatement, sqlPiece, type SqlPiece } from '../../db/composed-statement.js';
import type { ApiError } from '../../errors.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement } from '../../db/statement.js';
import { UNKEYED_HASHES, type KeyedHashes } from '../tokens/keyed-hashes.js';
import { DEFAULT_QUOTAS, type QuotaSource } from './overrides.js';
import {
  bucketEnd,
  bucketStart,
  policiesFor,
  secondsToBucketEnd,
  type RateLimitedRoute,
  type RateLimitPolicy,
  type RateLimitSubject,
} from './policies.js';

/** One limit to count this request in, who it is counted for (an address key, a session hash…), and the bucket's quota. */
export interface RateLimitCheck {
  policy: RateLimitPolicy;
  subject: string;
  /** How its bucket is stored: `KeyedHashes.rateLimitSubject` of the policy's name and the subject. */
  subjectHash: string;
  /** The policy's quota, or the one an operator's override sets for this subject. */
  quota: number;
}

/** Where one policy stands after this request: what the `RateLimit` header reports. */
export interface PolicyState {
  policy: RateLimitPolicy;
  /** The quota this request was counted against (an override's, or the policy's). */
  quota: number;
  remaining: number;
  /** The end of the current bucket, and the whole seconds from now to it. */
  resetAt: Date;
  resetSeconds: number;
  /** This policy's bucket was already full: the request is refused because of it. */
  exhausted: boolean;
}

export type RateLimitDecision =
  | { admitted: true; states: PolicyState[] }
  | { admitted: false; states: PolicyState[] /** the exhausted policy that resets last */; blocking: PolicyState };

/** One row of the counting CTE's answer: a bucket this request was counted in, and its count now. */
export interface BucketCount {
  limit_name: string;
  count: number;
}

/**
 * The limits that count the sender itself (its address), not what the request names (a machine, a
 * session...). A request that shows no claim to what it names (a precheck of a code that does not exist,
 * an activate whose precheck token is refused) is counted in these alone: otherwise anyone who knows a
 * `machine_id` could spend that machine's budget from addresses of their own.
 */
function countsSender(policy: RateLimitPolicy): boolean {
  // A fleet code's own bucket stands for the addresses inside its allowed_cidrs (DESIGN §22).
  return policy.subject === 'ip' || policy.subject === 'code';
}

/** The checks of `checks` that count the sender (see `countsSender`). */
export function senderChecks(checks: RateLimitCheck[]): RateLimitCheck[] {
  return checks.filter((check) => countsSender(check.policy));
}

const BUCKETS = sqlPiece(['buckets'], ':buckets::json');

/**
 * The counting of a request, to run as the CTE `counted` of the statement that makes the step's change,
 * so that counting and change are one statement: one upsert increments every bucket of the request, in
 * one fixed order (limit name, subject hash), so concurrent requests on any instance queue on the same
 * rows and never deadlock. The bucket that would pass its quota fails `rate_limit_buckets_quota_check`,
 * which undoes the whole statement: a refused request is counted nowhere and changes nothing, and exactly
 * `quota` requests get in. `buckets` is the JSON of `bucketsParam` (by default the parameter `:buckets`; a
 * statement that counts only on a condition hands an expression that is `'[]'` otherwise). With
 * `beyondSenderIf`, an SQL condition, the buckets that do not count the sender are counted only when it
 * holds (see `countsSender`): decided in the statement, with the rest of it. The CTE answers
 * `BucketCount` rows: the buckets counted. It reads what its two pieces read.
 */
export function countedCte<Buckets extends string = 'buckets', Condition extends string = never>({
  buckets = BUCKETS as SqlPiece<Buckets>,
  beyondSenderIf,
}: {
  buckets?: SqlPiece<Buckets>;
  beyondSenderIf?: SqlPiece<Condition>;
} = {}): SqlPiece<Buckets | Condition> {
  return sqlPiece(
    [...buckets.reads, ...(beyondSenderIf?.reads ?? [])],
    `counted as (
  insert into rate_limit_buckets (limit_name, subject_hash, bucket_start, count, quota)
  select b.limit_name, b.subject_hash, b.bucket_start, 1, b.quota
  from json_to_recordset(${buckets.text}) as b(limit_name text, subject_hash text, bucket_start timestamptz, quota integer, sender boolean)${
    beyondSenderIf
      ? `
  where b.sender or (${beyondSenderIf.text})`
      : ''
  }
  order by b.limit_name, b.subject_hash
  on conflict (limit_name, subject_hash, bucket_start) do update set count = rate_limit_buckets.count + 1, quota = excluded.quota
  returning limit_name, count)`,
  );
}

/** `countedCte()` with the buckets in `:buckets`. */
export const COUNTED_CTE = countedCte();

/** The counts as one JSON column of a statement's answer row (null when nothing was counted), read from the CTE `counted`. */
export const COUNTS_COLUMN = sqlPiece<never, { counts: BucketCount[] | null }>(
  [],
  `(select json_agg(json_build_object('limit_name', limit_name, 'count', count)) from counted) as counts`,
);

/** The parameter of `COUNTED_CTE` and of the statements that read buckets: the JSON of `bucketsParam`. */
export type BucketsParam = { buckets: string };

const READ_COUNTS = namedStatement<BucketsParam>(`select b.limit_name, coalesce(r.count, 0) as count
  from json_to_recordset(:buckets::json) as b(limit_name text, subject_hash text, bucket_start timestamptz, quota integer)
  left join rate_limit_buckets r on r.limit_name = b.limit_name and r.subject_hash = b.subject_hash and r.bucket_start = b.bucket_start`);

const COUNT_ONLY = composedStatement<BucketsParam>()`with ${COUNTED_CTE} select limit_name, count from counted`;

/** The parameter `:buckets` of `COUNTED_CTE`: the buckets of `checks` at `now`, with their quotas and whether they count the sender. */
function bucketsParam(checks: RateLimitCheck[], now: Date): string {
  return JSON.stringify(
    checks.map((check) => ({
      limit_name: check.policy.name,
      subject_hash: check.subjectHash,
      bucket_start: bucketStart(now, check.policy.windowSeconds).toISOString(),
      quota: check.quota,
      sender: countsSender(check.policy),
    })),
  );
}

/** What each bucket of `checks` holds at `now` (0 for one not counted yet), read without counting. */
export async function readBucketCounts(
  db: Database,
  checks: RateLimitCheck[],
  now: Date,
): Promise<Map<string, number>> {
  return countsByName(
    await runStatement<BucketCount, BucketsParam>(db, READ_COUNTS, { buckets: bucketsParam(checks, now) }),
  );
}

/**
 * A counted step's outcome (docs/development.md, "Errors"): admitted, with what the step answered or with the
 * request's own refusal (counted all the same); or refused by a limit (nothing counted, nothing changed).
 * `admitCounted` in the route throws the 429 or the refusal, so no route looks inside.
 */
export type CountedOutcome<T> =
  | { decision: RateLimitDecision & { admitted: true }; value: T; refusal?: undefined }
  | { decision: RateLimitDecision & { admitted: true }; refusal: ApiError; value?: undefined }
  | { decision: RateLimitDecision & { admitted: false }; value?: undefined; refusal?: undefined };

/** What a counted step found once its statement ran: its value, or the request's refusal. */
export type StepAnswer<T> = { value: T; refusal?: undefined } | { refusal: ApiError; value?: undefined };

/** What a counted statement answered: its counts, and the step's value or its refusal. */
export type CountedAnswer<T> = { counts: BucketCount[] | null } & StepAnswer<T>;

/**
 * Runs a statement that counts the request with `COUNTED_CTE` (handed the value of its `:buckets`), and
 * decides from the counts it answers. When a bucket was full the statement failed as a whole; the
 * counts are then read (after the refusal: they only grow within a bucket) for the headers.
 */
export async function countedStatement<T>(
  db: Database,
  checks: RateLimitCheck[],
  now: Date,
  run: (buckets: string) => Promise<CountedAnswer<T>>,
): Promise<CountedOutcome<T>> {
  const buckets = bucketsParam(checks, now);
  let answer: CountedAnswer<T>;
  try {
    answer = await run(buckets);
  } catch (error) {
    if (!isQuotaRefusal(error)) throw error;
    const counts = await runStatement<BucketCount, BucketsParam>(db, READ_COUNTS, { buckets });
    return { decision: refusedDecision(checks, counts, now) };
  }
  const decision = admittedDecision(checks, answer.counts ?? [], now);
  return answer.refusal ? { decision, refusal: answer.refusal } : { decision, value: answer.value as T };
}

/** Counts the request in every applicable bucket, or in none: one statement (see `COUNTED_CTE`). */
export async function consumeRateLimits(db: Database, checks: RateLimitCheck[], now: Date): Promise<RateLimitDecision> {
  if (checks.length === 0) return { admitted: true, states: [] };
  const outcome = await countedStatement(db, checks, now, async (buckets) => ({
    counts: await runStatement<BucketCount, BucketsParam>(db, COUNT_ONLY, { buckets }),
    value: undefined,
  }));
  return outcome.decision;
}

const REFUND = namedStatement<BucketsParam>(`update rate_limit_buckets r set count = r.count - 1
  from json_to_recordset(:buckets::json) as b(limit_name text, subject_hash text, bucket_start timestamptz, quota integer)
  where r.limit_name = b.limit_name and r.subject_hash = b.subject_hash and r.bucket_start = b.bucket_start and r.count > 0`);

/**
 * Gives back what `consumeRateLimits` counted for a request that, once checked, is not one the limit is
 * about (a sign-in that succeeded). Counting first and giving back after is what keeps a burst from being
 * checked past the quota: every request in flight holds its unit (DESIGN §23).
 */
export async function refundRateLimits(db: Database, checks: RateLimitCheck[], now: Date): Promise<void> {
  if (checks.length > 0) await runStatement(db, REFUND, { buckets: bucketsParam(checks, now) });
}

/** The failure of the increment that would pass a quota: the statement, and whatever it changed, is undone. */
function isQuotaRefusal(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (e.code === '23514' && String(e.message).includes('rate_limit_buckets_quota_check')) return true;
  }
  return false;
}

function stateOf(
  check: Pick<RateLimitCheck, 'policy' | 'quota'>,
  used: number,
  now: Date,
  exhausted: boolean,
): PolicyState {
  return {
    policy: check.policy,
    quota: check.quota,
    remaining: Math.max(0, check.quota - used),
    resetAt: bucketEnd(now, check.policy.windowSeconds),
    resetSeconds: secondsToBucketEnd(now, check.policy.windowSeconds),
    exhausted,
  };
}

/**
 * The decision of a limit counted outside `rate_limit_buckets` (the check-in's, on the server's row:
 * src/domain/servers/checkins.ts): admitted with `count` in its bucket now, or refused (`count` null: its bucket
 * was full, and nothing was counted).
 */
export function counterDecision(
  check: Pick<RateLimitCheck, 'policy' | 'quota'>,
  count: number | null,
  now: Date,
): RateLimitDecision {
  if (count !== null) return { admitted: true, states: [stateOf(check, count, now, false)] };
  const full = stateOf(check, check.quota, now, true);
  return { admitted: false, states: [full], blocking: full };
}

function countsByName(counts: BucketCount[]): Map<string, number> {
  return new Map(counts.map((r) => [r.limit_name, Number(r.count)]));
}

/** Admitted: the state of each limit the request was counted in (a statement may have counted it in some only). */
function admittedDecision(
  checks: RateLimitCheck[],
  counts: BucketCount[],
  now: Date,
): RateLimitDecision & { admitted: true } {
  const byName = countsByName(counts);
  const counted = checks.filter((check) => byName.has(check.policy.name));
  return { admitted: true, states: counted.map((check) => stateOf(check, byName.get(check.policy.name)!, now, false)) };
}

function refusedDecision(
  checks: RateLimitCheck[],
  counts: BucketCount[],
  now: Date,
): RateLimitDecision & { admitted: false } {
  const byName = countsByName(counts);
  // The refused increment was undone: each bucket holds what it held before this request.
  const states = checks.map((check) => {
    const used = byName.get(check.policy.name) ?? 0;
    return stateOf(check, used, now, used >= check.quota);
  });
  const exhausted = states.filter((s) => s.exhausted);
  // A bucket is full for the refusal to happen; should none look full now, the one closest to it blocks.
  const blocking = (exhausted.length ? exhausted : states).reduce((a, b) =>
    exhausted.length ? (b.resetSeconds > a.resetSeconds ? b : a) : b.remaining < a.remaining ? b : a,
  );
  return { admitted: false, states, blocking };
}

/** Where a route's checks take their quotas (an instance's overrides) and how they hash their subjects (an app's keys). */
export interface CheckSources {
  quotas: QuotaSource;
  hashes: KeyedHashes;
}

/** No override, subjects hashed without a key: what tests and benchmarks count with. */
const DEFAULT_CHECK_SOURCES: CheckSources = { quotas: DEFAULT_QUOTAS, hashes: UNKEYED_HASHES };

/**
 * The checks of one route: each of its policies, counted for the subject of that policy's kind, with
 * the quota `sources.quotas` gives that bucket (an operator's override, else the policy's own), its
 * subject hashed by `sources.hashes`.
 */
export function checksFor(
  route: RateLimitedRoute,
  subjects: Partial<Record<RateLimitSubject, string>>,
  sources: CheckSources = DEFAULT_CHECK_SOURCES,
): RateLimitCheck[] {
  return policiesFor(route).map((policy) => {
    const subject = subjects[policy.subject];
    if (subject === undefined) throw new Error(`no ${policy.subject} subject for ${policy.name}`);
    return {
      policy,
      subject,
      subjectHash: sources.hashes.rateLimitSubject(policy.name, subject),
      quota: sources.quotas.quotaFor(policy, subject).quota,
    };
  });
}
