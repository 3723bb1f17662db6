import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

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

/**
 * One spelling per address, so that every way of writing one client counts as one subject: an IPv4 client
 * written as IPv6 (`::ffff:5.6.7.8`, `::ffff:506:708`, `0:0:0:0:0:ffff:5.6.7.8`) becomes `5.6.7.8`, IPv6 is
 * written as RFC 5952 says (`2001:DB8:0::7` → `2001:db8::7`), without a zone (`fe80::1%eth0` → `fe80::1`).
 * A port, as some proxies write it in `X-Forwarded-For` (`a.b.c.d:port`, `[v6]:port`), is dropped. What is
 * not an IP address (Node's strict `isIP`: no `127.1`, no hex) is returned trimmed, as it was written.
 */
export function normaliseAddress(address: string): string {
  const trimmed = address.trim();
  const withoutPort =
    /^\[([^\]]*)\](?::\d+)?$/.exec(trimmed)?.[1] ?? /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(trimmed)?.[1] ?? trimmed;
  const family = isIP(withoutPort);
  // Node's isIP takes IPv4 only as the canonical dotted quad (no leading zeros): nothing to rewrite.
  if (family !== 6) return withoutPort;
  // A zone (`fe80::1%eth0`) names an interface of the host that wrote the address, not the client, and
  // ipaddr.js refuses some that isIP takes (`%eth-0`): it is dropped.
  const parsed = ipaddr.process(withoutPort.replace(/%.*$/, ''));
  return parsed.kind() === 'ipv6' ? (parsed as ipaddr.IPv6).toRFC5952String() : parsed.toString();
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client address: the socket peer, unless TRUST_PROXY says which `X-Forwarded-For` entries to believe.
 * With a hop count N the address N hops from the right of [...X-Forwarded-For, socket] is taken;
 * with a CIDR list, trusted proxies are skipped from the right and the first untrusted address is taken.
 * Every entry keeps its position, even one that is not an address (`unknown`): dropping it would shift
 * the count onto an entry the client wrote. When the entry taken is not an address, the answer is the
 * nearest trusted hop to its right (a proxy's address, or the socket peer), never something further left.
 */
export function resolveClientAddress(
  socketAddress: string,
  forwardedFor: string | undefined,
  trust: TrustProxy,
): string {
  const socket = normaliseAddress(socketAddress);
  if (trust.kind === 'none' || !forwardedFor) return socket;
  const chain = [...forwardedFor.split(',').map(normaliseAddress), socket];
  let index = chain.length - 1;
  if (trust.kind === 'hops') index = Math.max(0, index - trust.hops);
  else while (index > 0 && isTrusted(trust.list, chain[index]!)) index -= 1;
  // Everything right of `index` was written by trusted hops (or is the socket): safe to fall back to.
  while (index < chain.length - 1 && isIP(chain[index]!) === 0) index += 1;
  return chain[index]!;
}

/**
 * The key an address is counted under by rate limits: an IPv4 address as is, an IPv6 address by its /64
 * (`2001:db8:1:2::/64`), because one subscriber usually holds a whole /64 and could otherwise rotate
 * addresses freely. Expects an address `normaliseAddress` wrote (the request context's).
 */
export function rateLimitAddressKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const parts = ipaddr.IPv6.parse(address).parts.map((part, i) => (i < 4 ? part : 0));
  return `${new ipaddr.IPv6(parts).toRFC5952String()}/64`;
}

/** The client address as an answer states it: an IP address, or null when the service could not tell (no socket). */
export function observedAddress(clientAddress: string): string | null {
  return isIP(clientAddress) === 0 ? null : clientAddress;
}

/** Whether two addresses are one, however each is written (`2001:DB8:0::7` is `2001:db8::7`). */
export function sameAddress(a: string, b: string): boolean {
  return isIP(a.trim()) !== 0 && normaliseAddress(a) === normaliseAddress(b);
}
