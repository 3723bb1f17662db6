import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Rules about client addresses, with no HTTP in them: one spelling per address, the key rate limits count an
 * address under, which proxies are believed (TRUST_PROXY). src/http/client-address.ts applies them to a request.
 */

/** How far `X-Forwarded-For` is believed: not at all, a number of proxy hops, or proxies by address. */
export type TrustProxy =
  | { kind: 'none' }
  | { kind: 'hops'; hops: number }
  | { kind: 'cidrs'; list: BlockList; text: string };

export function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined || value.trim() === '') return { kind: 'none' };
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed);
    if (hops < 1 || hops > 16) throw new Error('a hop count must be between 1 and 16');
    return { kind: 'hops', hops };
  }
  const list = new BlockList();
  for (const entry of trimmed
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [address, prefixText] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0) throw new Error(`"${entry}" is neither a hop count nor an IP or CIDR`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) throw new Error(`"${entry}" has a bad prefix length`);
    list.addSubnet(address!, prefix, type);
  }
  return { kind: 'cidrs', list, text: trimmed };
}

/** An address in its one spelling, with the IP family it was read as (0: not an IP address). */
export interface ClientAddress {
  text: string;
  family: 0 | 4 | 6;
}

/**
 * One spelling per address, so that every way of writing one client counts as one subject: an IPv4 client
 * written as IPv6 (`::ffff:5.6.7.8`, `::ffff:506:708`, `0:0:0:0:0:ffff:5.6.7.8`) becomes `5.6.7.8`, IPv6 is
 * written as RFC 5952 says (`2001:DB8:0::7` → `2001:db8::7`), without a zone (`fe80::1%eth0` → `fe80::1`).
 * A port, as some proxies write it in `X-Forwarded-For` (`a.b.c.d:port`, `[v6]:port`), is dropped. What is
 * not an IP address (Node's strict `isIP`: no `127.1`, no hex) is kept trimmed, as it was written. The
 * request context parses its client once with it and carries the result (src/http/request-context.ts).
 */
export function parseAddress(address: string): ClientAddress {
  // Most addresses are a dotted quad already, the one spelling of an IPv4 address: nothing to parse.
  if (isIP(address) === 4) return { text: address, family: 4 };
  const trimmed = address.trim();
  const withoutPort =
    /^\[([^\]]*)\](?::\d+)?$/.exec(trimmed)?.[1] ?? /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(trimmed)?.[1] ?? trimmed;
  const family = isIP(withoutPort) as 0 | 4 | 6;
  // Node's isIP takes IPv4 only as the canonical dotted quad (no leading zeros): nothing to rewrite.
  if (family !== 6) return { text: withoutPort, family };
  // A zone (`fe80::1%eth0`) names an interface of the host that wrote the address, not the client, and
  // ipaddr.js refuses some that isIP takes (`%eth-0`): it is dropped.
  // Only an IPv4-mapped address (`::ffff:a.b.c.d`) is an IPv4 client; an IPv4-compatible one (`::a.b.c.d`,
  // deprecated by RFC 4291) is an IPv6 address like any other.
  // ipaddr.js reads every trailing dotted quad as `::ffff:` (`::1.2.3.4` came out as 1.2.3.4): the quad is
  // written as its two hexadecimal groups first.
  const parsed = ipaddr.IPv6.parse(withoutDottedQuad(withoutPort.replace(/%.*$/, '')));
  return parsed.isIPv4MappedAddress()
    ? { text: parsed.toIPv4Address().toString(), family: 4 }
    : { text: parsed.toRFC5952String(), family: 6 };
}

/** An IPv6 address (as isIP took it) with a trailing dotted quad written as two hexadecimal groups instead. */
function withoutDottedQuad(address: string): string {
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (!quad) return address;
  const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
  return `${address.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** An address in its one spelling (parseAddress). */
export function normaliseAddress(address: string): string {
  return parseAddress(address).text;
}

/**
 * The key an address is counted under by rate limits: an IPv4 address as is, an IPv6 address by its /64
 * (`2001:db8:1:2::/64`), because one subscriber usually holds a whole /64 and could otherwise rotate
 * addresses freely.
 */
export function clientKey(address: ClientAddress): string {
  if (address.family !== 6) return address.text;
  const parts = ipaddr.IPv6.parse(address.text).parts.map((part, i) => (i < 4 ? part : 0));
  return `${new ipaddr.IPv6(parts).toRFC5952String()}/64`;
}

/** The rate-limit key (clientKey) of an address `normaliseAddress` wrote. */
export function rateLimitAddressKey(address: string): string {
  return clientKey({ text: address, family: isIP(address) as 0 | 4 | 6 });
}
