import ipaddr from 'ipaddr.js';
import { rateLimitPolicies, type RateLimitPolicy, type RateLimitSubject } from './policies.js';

/** What an override names: one IP address, a network, or one machine. */
export type OverrideSubject = 'ip' | 'cidr' | 'machine';
export const OVERRIDE_SUBJECTS = ['ip', 'cidr', 'machine'] as const satisfies readonly OverrideSubject[];

/** The highest quota an override may set: a limit always stays a limit. */
export const OVERRIDE_QUOTA_MAX = 10_000;
/** How far ahead an override may expire: every override ends by itself. */
export const OVERRIDE_MAX_DAYS = 365;

/** The widest networks an override may cover: a /16 of IPv4, a /32 of IPv6. */
export const WIDEST_IPV4_PREFIX = 16;
export const WIDEST_IPV6_PREFIX = 32;
/** An IPv6 client is counted by its /64: no override can tell addresses inside one /64 apart. */
export const IPV6_CLIENT_PREFIX = 64;

/** The kind of limit each target can override: addresses and networks the per-IP limits, machines the per-machine ones. */
const limitSubjectOf: Record<OverrideSubject, RateLimitSubject> = { ip: 'ip', cidr: 'ip', machine: 'machine' };

/** The limits an override may name: those counted per IP address or per machine. */
export const overridablePolicies: readonly RateLimitPolicy[] = rateLimitPolicies.filter(
  (p) => p.subject === 'ip' || p.subject === 'machine',
);

/**
 * A target as the limiter matches it. `key` is what its buckets are counted under: an IPv4 address,
 * the /64 of an IPv6 address (`2001:db8:1:2::/64`), a network (`203.0.113.0/24`, host bits zero), a
 * machine id. `value` is the target as stored and listed: an address in its one spelling, a network, a
 * machine id.
 */
export interface OverrideTarget {
  subject: OverrideSubject;
  value: string;
  key: string;
}

/** An override as the limiter holds it: only those not removed, loaded by `loadActiveOverrides`. */
export interface RateLimitOverride extends OverrideTarget {
  id: string;
  limitName: string;
  quota: number;
  expiresAt: Date;
  reason: string;
  createdAt: Date;
  createdBy: string;
}

/** Why `limitName` cannot be overridden for `subject`, or undefined when it can. */
export function limitProblem(subject: OverrideSubject, limitName: string): string | undefined {
  const policy = rateLimitPolicies.find((p) => p.name === limitName);
  const wanted = limitSubjectOf[subject];
  const fitting = overridablePolicies.filter((p) => p.subject === wanted).map((p) => p.name);
  if (!policy)
    return `is not a limit an override can set: those counted per IP address or per machine are ${overridablePolicies.map((p) => p.name).join(', ')}`;
  if (policy.subject !== wanted)
    return `${limitName} is counted per ${policy.subject}, not per ${wanted}: a ${subject} override can set ${fitting.join(', ')}`;
  return undefined;
}

/** The quota a bucket gets, and the override that set it (null: the policy's default). */
export interface AppliedQuota {
  quota: number;
  override: RateLimitOverride | null;
}

/** Where the limiter takes each bucket's quota from. */
export interface QuotaSource {
  quotaFor(policy: RateLimitPolicy, subject: string): AppliedQuota;
}

/** The policies' own quotas: no override. */
export const DEFAULT_QUOTAS: QuotaSource = { quotaFor: (policy) => ({ quota: policy.quota, override: null }) };

interface LimitOverrides {
  /** By key: single addresses (an IPv6 one by its /64) and machines. */
  exact: Map<string, RateLimitOverride>;
  /** Networks, the narrowest first: the first that holds an address is the most specific. */
  networks: { override: RateLimitOverride; range: [ipaddr.IPv4 | ipaddr.IPv6, number] }[];
}

/** The address of a per-IP subject key (`203.0.113.7`, or `2001:db8:1:2::` of `2001:db8:1:2::/64`); null when it is none. */
function keyAddress(key: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const address = key.endsWith(`/${IPV6_CLIENT_PREFIX}`) ? key.slice(0, -3) : key;
  return ipaddr.isValid(address) ? ipaddr.parse(address) : null;
}

/**
 * The overrides in place, arranged for the limiter: per limit, a lookup of single targets and the
 * networks narrowest first. The most specific override that holds a bucket's subject and has not
 * expired sets its quota: a single address (or a machine) before any network, a narrower network
 * before a wider one. An expired override is passed over, so it stops applying at its `expires_at`
 * without a reload, and a wider one or the default applies again.
 */
export class OverrideTable {
  private readonly byLimit = new Map<string, LimitOverrides>();

  /** `quotaFactor`: RATE_LIMIT_PROFILE's, applied to the policies' default quotas (an override is taken as set). */
  constructor(
    readonly overrides: readonly RateLimitOverride[],
    private readonly quotaFactor = 1,
  ) {
    for (const override of overrides) {
      let entry = this.byLimit.get(override.limitName);
      if (!entry) this.byLimit.set(override.limitName, (entry = { exact: new Map(), networks: [] }));
      if (override.subject === 'cidr') entry.networks.push({ override, range: ipaddr.parseCIDR(override.key) });
      else entry.exact.set(override.key, override);
    }
    for (const entry of this.byLimit.values()) entry.networks.sort((a, b) => b.range[1] - a.range[1]);
  }

  /** The quotas as of `now`, for the limiter. */
  at(now: Date): QuotaSource {
    return { quotaFor: (policy, subject) => this.quotaFor(policy, subject, now) };
  }

  quotaFor(policy: RateLimitPolicy, subject: string, now: Date): AppliedQuota {
    const entry = this.byLimit.get(policy.name);
    const live = (override: RateLimitOverride | undefined) =>
      override !== undefined && override.expiresAt.getTime() > now.getTime();
    if (entry) {
      const exact = entry.exact.get(subject);
      if (live(exact)) return { quota: exact!.quota, override: exact! };
      const address = entry.networks.length ? keyAddress(subject) : null;
      if (address) {
        for (const { override, range } of entry.networks) {
          if (live(override) && address.kind() === range[0].kind() && address.match(range))
            return { quota: override.quota, override };
        }
      }
    }
    return { quota: policy.quota * this.quotaFactor, override: null };
  }
}
