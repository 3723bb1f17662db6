import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A network in CIDR notation as an operator wrote it, parsed: its address, its prefix and its one spelling. */
export interface IpNetwork {
  kind: 'ipv4' | 'ipv6';
  prefix: number;
  /** `address/prefix` with the address as it is written once (IPv6 as RFC 5952 writes it). */
  network: string;
}

const CIDR_PROBLEM = 'must be a network in CIDR notation, such as 203.0.113.0/24 or 2001:db8:1200::/40';

/** An address in its one spelling: IPv6 as RFC 5952 writes it. */
function written(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  return address.kind() === 'ipv6' ? (address as ipaddr.IPv6).toRFC5952String() : address.toString();
}

/**
 * `address/prefix`, or why it is none (a sentence for the 400): a prefix of 0 to 32 (IPv4) or 128 (IPv6),
 * no address bits after the prefix, no zone index, an IPv4 network written as IPv4 (not IPv4-mapped IPv6).
 */
export function parseNetwork(value: string): IpNetwork | { problem: string } {
  const [address = '', prefixText, ...rest] = value.split('/');
  if (
    prefixText === undefined ||
    rest.length > 0 ||
    !/^\d{1,3}$/.test(prefixText) ||
    address.includes('%') ||
    isIP(address) === 0
  )
    return { problem: CIDR_PROBLEM };
  const prefix = Number(prefixText);
  const parsed = ipaddr.parse(address);
  const kind = parsed.kind();
  if (kind === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    return { problem: 'must write an IPv4 network as IPv4 (203.0.113.0/24), not as IPv4-mapped IPv6' };
  if (prefix > (kind === 'ipv4' ? 32 : 128)) return { problem: CIDR_PROBLEM };
  const base =
    kind === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address}/${prefix}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address}/${prefix}`);
  const network = `${written(base)}/${prefix}`;
  if (written(base) !== written(parsed))
    return { problem: `has address bits set after its /${prefix}: write the network as ${network}` };
  return { kind, prefix, network };
}

/** An address (as one network of itself: `/32`, `/128`) or a network, or why it is neither. */
export function addressOrNetwork(value: string): IpNetwork | { problem: string } {
  if (value.includes('/')) return parseNetwork(value);
  if (value.includes('%') || isIP(value) === 0)
    return {
      problem: `must be an IPv4 or IPv6 address, or a network in CIDR notation (203.0.113.0/24, 2001:db8::/32)`,
    };
  const parsed = ipaddr.process(value);
  const prefix = parsed.kind() === 'ipv4' ? 32 : 128;
  return parseNetwork(`${written(parsed)}/${prefix}`);
}
