/**
 * The bounds of a code an operator issues (DESIGN §22), shared by the wire schema that checks them and the
 * domain that applies them.
 */
export const FLEET_CODE_MAX_USES = 10_000;
export const FLEET_CODE_MIN_TTL_SECONDS = 300;
export const FLEET_CODE_MAX_TTL_SECONDS = 2_592_000;
export const FLEET_CODE_MAX_TAGS = 16;
export const FLEET_CODE_MAX_CIDRS = 16;
/** The widest network `allowed_cidrs` takes, per family. */
export const FLEET_CODE_WIDEST_PREFIX = { ipv4: 8, ipv6: 32 } as const;
export const TAG_KEY_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,31}$/;
/** The activations the show of a code with `uses` > 1 answers, newest first. */
export const SHOWN_CODE_ACTIVATIONS_LIMIT = 100;

export type Tags = Record<string, string>;

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** A lowercase host name whose leftmost label may be `*` (then at least one label follows). */
export const HOSTNAME_PATTERN_PATTERN = new RegExp(`^(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*$`);
/**
 * Whether a host name matches a code's `hostname_pattern`, compared without case: a leftmost `*` matches
 * exactly one label (`*.prod.example.com` matches `db1.prod.example.com`, not `a.b.prod.example.com`).
 */
export function hostnameMatches(pattern: string, hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (!pattern.startsWith('*.')) return name === pattern;
  const suffix = pattern.slice(1);
  if (!name.endsWith(suffix)) return false;
  const first = name.slice(0, name.length - suffix.length);
  return first.length > 0 && !first.includes('.');
}
