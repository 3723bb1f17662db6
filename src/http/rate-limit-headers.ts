import { BROWSER_SESSION_COOKIE } from '../domain/browser-sessions/sessions.js';
import type { PolicyState } from '../domain/rate-limits/limiter.js';
import {
  policiesFor,
  rateLimitTable,
  type RateLimitedRoute,
  type RateLimitPolicy,
} from '../domain/rate-limits/policies.js';
import { errorResponses } from '../schemas/envelope.js';
import { headerRef } from '../schemas/response-headers.js';

/**
 * `RateLimit-Policy` and `RateLimit` of draft-ietf-httpapi-ratelimit-headers-11: structured-field lists,
 * one item per policy, named by a string: `"issue-ip-hour";q=3;w=3600` and `"issue-ip-hour";r=2;t=1800`.
 */
function rateLimitPolicyHeader(policies: readonly RateLimitPolicy[]): string {
  return policies.map((p) => policyItem(p.name, p.quota, p.windowSeconds)).join(', ');
}

function policyItem(name: string, quota: number, windowSeconds: number): string {
  return `"${name}";q=${quota};w=${windowSeconds}`;
}

function rateLimitHeader(states: PolicyState[]): string {
  return states.map((s) => `"${s.policy.name}";r=${s.remaining};t=${s.resetSeconds}`).join(', ');
}

/** `q` is the quota the request was counted against: an operator's override shows here too. */
export function rateLimitHeaders(states: PolicyState[]): Record<string, string> {
  // In the order a web Headers writes them (sorted), wherever they are set.
  return {
    RateLimit: rateLimitHeader(states),
    'RateLimit-Policy': states.map((s) => policyItem(s.policy.name, s.quota, s.policy.windowSeconds)).join(', '),
  };
}

/** Which requests of a route are counted, and in which limits, where that is not simply "every request in every limit". */
const countingNotes: Partial<Record<RateLimitedRoute, string>> = {
  page: `Only a request that would create a new browser session (one without a valid \`${BROWSER_SESSION_COOKIE}\` cookie) is counted; a browser that keeps its cookie never is.`,
  precheck:
    "A precheck of a code that does not exist (404 `install_code_not_found`) is counted only in `precheck-ip-day`, so knowing a `machine_id` is not enough to use up that machine's budget; a precheck of a code that exists (usable or not) is counted in both.",
  activate:
    "A request whose precheck token is invalid (401 `precheck_token_invalid`) or was made for another machine (403 `machine_mismatch`) is counted only in `activate-ip-day`, so knowing a `machine_id` is not enough to use up that machine's budget; a request with a valid token is counted in both.",
};

const clientAddressNote =
  'The client IP address is the socket peer, or the `X-Forwarded-For` entry `TRUST_PROXY` points at; an IPv6 client is counted by its /64 network.';

const overrideNote =
  "The quotas below are the defaults: an operator may set another for a client's address, network or machine, until a set time (`POST /api/v2/admin/rate-limit-overrides`); `RateLimit-Policy` then says the quota that applied.";

/** The route description paragraph: its limits, derived from the one table. */
export function rateLimitDescription(route: RateLimitedRoute): string {
  const policies = policiesFor(route);
  const notes = [
    countingNotes[route],
    policies.some((p) => p.subject === 'ip') ? clientAddressNote : undefined,
    policies.some((p) => p.subject === 'ip' || p.subject === 'machine') ? overrideNote : undefined,
  ].filter(Boolean);
  return `**Rate limits.** Fixed UTC buckets (an hour bucket starts at :00, a day bucket at 00:00 UTC), never rolling windows. Each request is counted in every limit below that applies to it or, when one of them is exhausted, in none; the refusal is 429 \`rate_limit_exceeded\` with \`Retry-After\`.${notes.map((n) => ` ${n}`).join('')}

${rateLimitTable(route)}

Every answer after the limits were checked carries \`RateLimit-Policy\` (each policy the request was checked against: \`q\` quota, \`w\` window in seconds) and \`RateLimit\` (each such policy: \`r\` remaining, \`t\` seconds until its bucket resets), as in draft-ietf-httpapi-ratelimit-headers-11.`;
}

/** The `RateLimit-Policy` / `RateLimit` headers of a limited route's answers, saying this route's policies. */
export function rateLimitHeaderDocs(route: RateLimitedRoute) {
  const policies = policiesFor(route);
  const fresh = policies.map((policy) => ({
    policy,
    quota: policy.quota,
    remaining: policy.quota - 1,
    resetAt: new Date(0),
    resetSeconds: 1800,
    exhausted: false,
  }));
  return {
    'RateLimit-Policy': headerRef(
      'RateLimit-Policy',
      `The limits of this route, one item per policy (\`q\` requests per \`w\` seconds, a fixed UTC bucket; \`q\` is an operator's override where one applies to this client): \`${rateLimitPolicyHeader(policies)}\`.`,
    ),
    RateLimit: headerRef(
      'RateLimit',
      `Where this client stands in each policy (\`r\` requests remaining, \`t\` seconds until the bucket resets), e.g. for a fresh client \`${rateLimitHeader(fresh)}\`.`,
    ),
  };
}

/** The 429 answer of a limited route: the envelope plus `Retry-After` and the two headers. */
export function rateLimitedResponse(route: RateLimitedRoute) {
  const base = errorResponses('rate_limit_exceeded')[429]!;
  return {
    ...base,
    description: `\`rate_limit_exceeded\`: a limit of this route is exhausted; the message says when to retry.`,
    headers: { ...base.headers, ...rateLimitHeaderDocs(route) },
  };
}
