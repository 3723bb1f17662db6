import type { BlockList } from 'node:net';
import { parseAddress, type ClientAddress, type TrustProxy } from '../domain/client-addresses.js';

/** The request's side of the address rules (src/domain/client-addresses.ts): which `X-Forwarded-For` entry to believe. */

function isTrusted(list: BlockList, address: ClientAddress): boolean {
  return address.family !== 0 && list.check(address.text, address.family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client address: the socket peer, unless TRUST_PROXY says which `X-Forwarded-For` entries to believe.
 * With a hop count N the address N hops from the right of [...X-Forwarded-For, socket] is taken;
 * with a CIDR list, trusted proxies are skipped from the right and the first untrusted address is taken.
 * Every entry keeps its position, even one that is not an address (`unknown`): dropping it would shift
 * the count onto an entry the client wrote. When the entry taken is not an address, the answer is the
 * nearest trusted hop to its right (a proxy's address, or the socket peer), never something further left.
 * Each entry is parsed once, and the answer carries its parse (its family) for what follows.
 */
export function resolveClientAddress(
  socketAddress: string,
  forwardedFor: string | undefined,
  trust: TrustProxy,
): ClientAddress {
  const socket = parseAddress(socketAddress);
  if (trust.kind === 'none' || !forwardedFor) return socket;
  const chain = [...forwardedFor.split(',').map(parseAddress), socket];
  let index = chain.length - 1;
  if (trust.kind === 'hops') index = Math.max(0, index - trust.hops);
  else while (index > 0 && isTrusted(trust.list, chain[index]!)) index -= 1;
  // Everything right of `index` was written by trusted hops (or is the socket): safe to fall back to.
  while (index < chain.length - 1 && chain[index]!.family === 0) index += 1;
  return chain[index]!;
}
