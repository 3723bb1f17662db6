/**
 * The rate limits of the service (seed §8), in ONE table. The limiter, the route descriptions in the
 * OpenAPI document and the table in docs/integrators.md are all derived from it, so they cannot drift.
 */

export type RateLimitedRoute = 'page' | 'issue' | 'precheck' | 'activate' | 'register' | 'checkin' | 'console-sign-in';
export type RateLimitSubject = 'ip' | 'session' | 'fingerprint' | 'machine' | 'server' | 'precheck' | 'code';

export const HOUR_SECONDS = 3600;
export const DAY_SECONDS = 86_400;
/** The bucket of the approval wait: an activate awaiting the person's approval is answered at most once per 5 s per precheck token. */
export const APPROVAL_WAIT_SECONDS = 5;
/** The bucket of a fleet code's own limits (DESIGN §22). */
const MINUTE_SECONDS = 60;

export interface RateLimitPolicy {
  /** The policy name of the `RateLimit-Policy` header and the `limit_name` column. */
  readonly name: string;
  readonly route: RateLimitedRoute;
  readonly subject: RateLimitSubject;
  /** Requests admitted per bucket. */
  readonly quota: number;
  /** A fixed UTC bucket: an hour starting at :00 or a day starting at 00:00 UTC (the approval wait's: 5 s). */
  readonly windowSeconds:
    | typeof HOUR_SECONDS
    | typeof DAY_SECONDS
    | typeof APPROVAL_WAIT_SECONDS
    | typeof MINUTE_SECONDS;
}

export const rateLimitPolicies = [
  // Each new session is a browser_sessions row: a bot loading the page without its cookie must not grow the table unbounded.
  { name: 'session-ip-hour', route: 'page', subject: 'ip', quota: 30, windowSeconds: HOUR_SECONDS },
  { name: 'issue-ip-hour', route: 'issue', subject: 'ip', quota: 3, windowSeconds: HOUR_SECONDS },
  { name: 'issue-ip-day', route: 'issue', subject: 'ip', quota: 10, windowSeconds: DAY_SECONDS },
  { name: 'issue-session-hour', route: 'issue', subject: 'session', quota: 2, windowSeconds: HOUR_SECONDS },
  { name: 'issue-fingerprint-day', route: 'issue', subject: 'fingerprint', quota: 6, windowSeconds: DAY_SECONDS },
  { name: 'precheck-ip-day', route: 'precheck', subject: 'ip', quota: 10, windowSeconds: DAY_SECONDS },
  { name: 'precheck-machine-day', route: 'precheck', subject: 'machine', quota: 10, windowSeconds: DAY_SECONDS },
  { name: 'activate-ip-day', route: 'activate', subject: 'ip', quota: 5, windowSeconds: DAY_SECONDS },
  { name: 'activate-machine-day', route: 'activate', subject: 'machine', quota: 5, windowSeconds: DAY_SECONDS },
  // Legacy agent routes: generous next to their normal use (one register per install, a checkin every 300 s),
  // so only a misbehaving installer or agent is stopped before it floods the database.
  { name: 'register-ip-hour', route: 'register', subject: 'ip', quota: 10, windowSeconds: HOUR_SECONDS },
  { name: 'checkin-server-hour', route: 'checkin', subject: 'server', quota: 120, windowSeconds: HOUR_SECONDS },
  // The operator console: only refused sign-ins are counted, and a full bucket refuses every sign-in (a right token included).
  { name: 'console-sign-in-ip-hour', route: 'console-sign-in', subject: 'ip', quota: 10, windowSeconds: HOUR_SECONDS },
] as const satisfies readonly RateLimitPolicy[];

/**
 * Not one of the seed's limits, and counted in none of them: the pace of an installer polling activate while
 * the person has not approved its machine yet (DESIGN §14). One answer per precheck token per fixed 5-second
 * bucket; faster repeats get 429. Not overridable.
 */
export const approvalWaitPolicy = {
  name: 'approval-wait-precheck',
  route: 'activate',
  subject: 'precheck',
  quota: 1,
  windowSeconds: APPROVAL_WAIT_SECONDS,
} as const satisfies RateLimitPolicy;

/**
 * Not the seed's limits either (DESIGN §22): inside the `allowed_cidrs` of a fleet code with `uses` > 1,
 * these per-code buckets replace the per-address limits of precheck and activate, so that a fleet behind a NAT
 * the operator named does not stop at 10 a day. The per-machine limits stay. Not overridable.
 */
export const fleetCodePolicies = {
  precheck: {
    name: 'precheck-code-minute',
    route: 'precheck',
    subject: 'code',
    quota: 600,
    windowSeconds: MINUTE_SECONDS,
  },
  activate: {
    name: 'activate-code-minute',
    route: 'activate',
    subject: 'code',
    quota: 60,
    windowSeconds: MINUTE_SECONDS,
  },
} as const satisfies Record<'precheck' | 'activate', RateLimitPolicy>;

/**
 * Not the seed's limits (DESIGN §25): an identity precheck counts here, per address, before its token is verified
 * (verifying may fetch the issuer's keys); once verified it counts in the code's own bucket instead of the
 * per-address limits, since a cluster's pods share one node address. Not overridable.
 */
export const identityAddressPolicy = {
  name: 'identity-precheck-ip-hour',
  route: 'precheck',
  subject: 'ip',
  quota: 600,
  windowSeconds: HOUR_SECONDS,
} as const satisfies RateLimitPolicy;

/**
 * RATE_LIMIT_PROFILE: `development` multiplies every quota by 100, so that trying the service locally
 * from one address does not run into `issue-ip-hour` after 3 codes. The quotas are scaled where the
 * checks are made (`checksFor`); the table above, and everything documented from it, keeps the defaults.
 */
export const rateLimitProfiles = { default: 1, development: 100 } as const;
export type RateLimitProfileName = keyof typeof rateLimitProfiles;

const routePaths: Record<RateLimitedRoute, string> = {
  page: 'GET /slowdns',
  issue: 'POST /api/v2/slowdns/code/issue',
  precheck: 'POST /api/v2/slowdns/install/precheck',
  activate: 'POST /api/v2/slowdns/install/activate',
  register: 'POST /register',
  checkin: 'POST /checkin',
  'console-sign-in': 'POST /admin/sign-in',
};

const routeNouns: Record<RateLimitedRoute, string> = {
  page: 'new browser sessions',
  issue: 'install code requests',
  precheck: 'prechecks',
  activate: 'activations',
  register: 'server registrations',
  checkin: 'check-ins',
  'console-sign-in': 'refused console sign-ins',
};

const subjectLabels: Record<RateLimitSubject, string> = {
  ip: 'client IP address (an IPv6 client by its /64)',
  session: 'browser session (`slowdns_browser` cookie)',
  fingerprint: 'browser fingerprint',
  machine: 'machine (`machine_id`)',
  server: 'server (its agent token)',
  precheck: 'precheck token',
  code: 'install code (a fleet code inside its own `allowed_cidrs`)',
};

const windowLabels: Record<RateLimitPolicy['windowSeconds'], string> = {
  [HOUR_SECONDS]: 'UTC hour (resets at :00)',
  [DAY_SECONDS]: 'UTC day (resets at 00:00 UTC)',
  [APPROVAL_WAIT_SECONDS]: '5 seconds',
  [MINUTE_SECONDS]: 'UTC minute',
};

/** The table indexed by route once: the limiter asks on every request. */
const policiesByRoute = new Map<RateLimitedRoute, readonly RateLimitPolicy[]>();
for (const policy of rateLimitPolicies as readonly RateLimitPolicy[])
  policiesByRoute.set(policy.route, [...(policiesByRoute.get(policy.route) ?? []), policy]);

export function policiesFor(route: RateLimitedRoute): readonly RateLimitPolicy[] {
  return policiesByRoute.get(route) ?? [];
}

/** Start of the fixed UTC bucket holding `now`: Unix time is UTC, so hours and days align on multiples. */
export function bucketStart(now: Date, windowSeconds: number): Date {
  const size = windowSeconds * 1000;
  return new Date(Math.floor(now.getTime() / size) * size);
}

export function bucketEnd(now: Date, windowSeconds: number): Date {
  return new Date(bucketStart(now, windowSeconds).getTime() + windowSeconds * 1000);
}

/** Whole seconds from `now` to the end of its bucket (1 at 10:59:59.5, 3600 at 11:00:00). */
export function secondsToBucketEnd(now: Date, windowSeconds: number): number {
  return Math.ceil((bucketEnd(now, windowSeconds).getTime() - now.getTime()) / 1000);
}

const subjectNouns: Record<RateLimitSubject, string> = {
  ip: 'IP address',
  session: 'browser session',
  fingerprint: 'browser',
  machine: 'machine',
  server: 'server',
  precheck: 'precheck token',
  code: 'install code',
};
const windowNouns: Record<RateLimitPolicy['windowSeconds'], string> = {
  [HOUR_SECONDS]: 'UTC hour',
  [DAY_SECONDS]: 'UTC day',
  [APPROVAL_WAIT_SECONDS]: '5 seconds',
  [MINUTE_SECONDS]: 'UTC minute',
};

/** "2 install code requests per browser session per UTC hour": for messages people read. */
export function summarisePolicy(policy: RateLimitPolicy): string {
  return `${policy.quota} ${routeNouns[policy.route]} per ${subjectNouns[policy.subject]} per ${windowNouns[policy.windowSeconds]}`;
}

function tableRow(policy: RateLimitPolicy, withRoute: boolean): string {
  const cells = [
    `\`${policy.name}\``,
    String(policy.quota),
    windowLabels[policy.windowSeconds],
    subjectLabels[policy.subject],
  ];
  return `| ${withRoute ? `\`${routePaths[policy.route]}\` | ` : ''}${cells.join(' | ')} |`;
}

/** The markdown table of one route's limits (its OpenAPI description) or of every limit (docs/integrators.md). */
export function rateLimitTable(route?: RateLimitedRoute): string {
  const withRoute = route === undefined;
  const head = withRoute
    ? '| route | policy | quota | window | counted per |\n|---|---|---|---|---|'
    : '| policy | quota | window | counted per |\n|---|---|---|---|';
  const rows = route ? policiesFor(route) : rateLimitPolicies;
  return [head, ...rows.map((p) => tableRow(p, withRoute))].join('\n');
}
