import type { Context } from 'hono';
import type { Database } from '../db/database.js';
import type { RouteDeps } from '../deps.js';
import {
  type CheckSources,
  consumeRateLimits,
  type CountedOutcome,
  type PolicyState,
  type RateLimitCheck,
  type RateLimitDecision,
} from '../domain/rate-limits/limiter.js';
import { summarisePolicy } from '../domain/rate-limits/policies.js';
import { ApiError } from '../errors.js';
import { setAnswerHeader } from './answer-headers.js';
import { rateLimitHeaders } from './rate-limit-headers.js';
import type { AppEnv } from './app-env.js';

/** Where this app's checks take their quotas at `now` (its copy of the overrides) and how they hash subjects (its keys). */
export async function checkSources(
  deps: Pick<RouteDeps, 'rateLimitOverrides' | 'keyedHashes'>,
  now: Date,
): Promise<CheckSources> {
  return { quotas: await deps.rateLimitOverrides.at(now), hashes: deps.keyedHashes };
}

/**
 * Counts the request in `checks` (a statement of its own: for a route that counts nothing else). See
 * `applyRateLimitDecision` for what the answer gets.
 */
export async function enforceRateLimits(
  c: Context<AppEnv>,
  db: Database,
  now: Date,
  checks: RateLimitCheck[],
): Promise<void> {
  applyRateLimitDecision(c, await consumeRateLimits(db, checks, now));
}

/**
 * Admitted: the `RateLimit` headers are set on whatever the route answers (a later 404 was counted too).
 * Refused: 429 `rate_limit_exceeded` with `Retry-After` and the headers.
 */
export function applyRateLimitDecision(c: Context<AppEnv>, decision: RateLimitDecision): void {
  const headers = rateLimitHeaders(decision.states);
  if (decision.admitted) {
    for (const [name, value] of Object.entries(headers)) setAnswerHeader(c, name, value);
    return;
  }
  const { blocking } = decision;
  c.get('metrics')?.refusal(blocking.policy.name);
  throw new ApiError('rate_limit_exceeded', refusalMessage(blocking), {
    ...headers,
    'Retry-After': String(blocking.resetSeconds),
  });
}

/** What a counted step answered once its decision is applied (headers set, or 429 thrown); its refusal thrown. */
export function admitCounted<T>(c: Context<AppEnv>, outcome: CountedOutcome<T>): T {
  applyRateLimitDecision(c, outcome.decision);
  if (outcome.refusal) throw outcome.refusal;
  return outcome.value as T;
}

/** "Limit issue-session-hour reached: 2 install code requests per browser session per UTC hour. Try again in 12 minutes (after 11:00 UTC)." */
function refusalMessage(blocking: PolicyState): string {
  const clock = blocking.resetAt.toISOString().slice(11, 16);
  return `Limit ${blocking.policy.name} reached: ${summarisePolicy({ ...blocking.policy, quota: blocking.quota })}. Try again in ${humanDuration(blocking.resetSeconds)} (after ${clock} UTC).`;
}

function humanDuration(seconds: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (seconds < 60) return plural(seconds, 'second');
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${plural(hours, 'hour')} ${plural(rest, 'minute')}` : plural(hours, 'hour');
}
