import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { IPV6_CLIENT_PREFIX, WIDEST_IPV4_PREFIX, WIDEST_IPV6_PREFIX, type OverrideSubject, type OverrideTarget } from '../../domain/rate-limits/overrides.js';
import { normaliseAddress, rateLimitAddressKey } from '../../http/client-address.js';

const MACHINE_ID = /^[0-9a-f]{32}$/;

/**
 * The target `value` names for `subject`, keyed as the limiter counts it (see `OverrideTarget`), or why
 * it names none (a sentence for the 400). An IPv6 address is keyed by its /64, since an IPv6 client is
 * counted by its /64: the override applies to everyone in that /64, who share one bucket anyway.
 */
export function overrideTarget(subject: OverrideSubject, value: string): OverrideTarget | { problem: string } {
  if (subject === 'machine') {
    return MACHINE_ID.test(value) ? { subject, value, key: value } : { problem: 'must be a machine id: the 32 lower-case hex characters of /etc/machine-id' };
  }
  if (subject === 'cidr') return networkTarget(value);
  if (value.includes('/')) return { problem: 'must be a single IP address; for a network use the subject "cidr"' };
  if (value.includes('%') || isIP(value) === 0) return { problem: 'must be an IPv4 or IPv6 address (no zone index, no port)' };
  const address = normaliseAddress(value);
  return { subject, value: address, key: rateLimitAddressKey(address) };
}

/** An address in its one spelling: IPv6 as RFC 5952 writes it. */
function written(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  return address.kind() === 'ipv6' ? (address as ipaddr.IPv6).toRFC5952String() : address.toString();
}

function networkTarget(value: string): OverrideTarget | { problem: string } {
  const [address = '', prefixText, ...rest] = value.split('/');
  if (prefixText === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefixText) || address.includes('%') || isIP(address) === 0) {
    return { problem: 'must be a network in CIDR notation, such as 203.0.113.0/24 or 2001:db8:1200::/40' };
  }
  const prefix = Number(prefixText);
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') {
    if (prefix < WIDEST_IPV4_PREFIX || prefix > 32) return { problem: `must be an IPv4 network from /${WIDEST_IPV4_PREFIX} to /32: an override never covers more than a /${WIDEST_IPV4_PREFIX}` };
  } else if ((parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return { problem: 'must write an IPv4 network as IPv4 (203.0.113.0/24), not as IPv4-mapped IPv6' };
  } else if (prefix < WIDEST_IPV6_PREFIX || prefix > IPV6_CLIENT_PREFIX) {
    return {
      problem: `must be an IPv6 network from /${WIDEST_IPV6_PREFIX} to /${IPV6_CLIENT_PREFIX}: an override never covers more than a /${WIDEST_IPV6_PREFIX}, and an IPv6 client is counted by its /${IPV6_CLIENT_PREFIX}, so no narrower network can be told apart (the subject "ip" sets one /${IPV6_CLIENT_PREFIX})`,
    };
  }
  const base = parsed.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(`${address}/${prefix}`) : ipaddr.IPv6.networkAddressFromCIDR(`${address}/${prefix}`);
  const network = `${written(base)}/${prefix}`;
  if (written(base) !== written(parsed)) return { problem: `has address bits set after its /${prefix}: write the network as ${network}` };
  return { subject: 'cidr', value: network, key: network };
}
