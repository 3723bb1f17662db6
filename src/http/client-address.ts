import { isIP, type BlockList } from 'node:net';
import { normaliseAddress, type TrustProxy } from '../domain/client-addresses.js';

/** The request's side of the address rules (src/domain/client-addresses.ts): which `X-Forwarded-For` entry to believe. */

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
