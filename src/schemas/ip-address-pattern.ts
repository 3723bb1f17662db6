/**
 * IP addresses as regular expressions for the document (JSON Schema `pattern`, ECMA-262, no flags), for
 * what `format: ipv4` / `ipv6` cannot say: the same address with surrounding whitespace, which the server
 * accepts and trims. The server itself checks with Node's `isIP`; test/contract/one-source.test.ts holds
 * the two to agreeing.
 */
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
const GROUP = '[0-9A-Fa-f]{1,4}';

/** `n` groups joined by `:` (n ≥ 1). */
const groups = (n: number) => (n === 1 ? GROUP : `(?:${GROUP}:){${n - 1}}${GROUP}`);

/** Every IPv6 spelling: eight groups, six and an IPv4 tail, or `::` standing for one group or more after k written ones. */
function ipv6(): string {
  const spellings = [groups(8), `(?:${GROUP}:){6}${IPV4}`];
  for (let k = 0; k <= 7; k++) {
    const left = k === 0 ? '' : groups(k);
    const right = k === 7 ? '' : `(?:${GROUP}(?::${GROUP}){0,${6 - k}})?`;
    spellings.push(`${left}::${right}`);
    if (k <= 5) spellings.push(`${left}::(?:${GROUP}:){0,${5 - k}}${IPV4}`);
  }
  return `(?:${spellings.join('|')})`;
}

/** An IPv4 or IPv6 address (no zone index), with optional surrounding whitespace. */
export const PADDED_IP_ADDRESS_PATTERN = `^\\s*(?:${IPV4}|${ipv6()})\\s*$`;
