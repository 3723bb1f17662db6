import { isIP } from 'node:net';
import {
  IPV6_CLIENT_PREFIX,
  WIDEST_IPV4_PREFIX,
  WIDEST_IPV6_PREFIX,
  type OverrideSubject,
  type OverrideTarget,
} from '../../domain/rate-limits/overrides.js';
import { normaliseAddress, rateLimitAddressKey } from '../../domain/client-addresses.js';
import { parseNetwork } from '../ip-network.js';

const MACHINE_ID = /^[0-9a-f]{32}$/;

/**
 * The target `value` names for `subject`, keyed as the limiter counts it (see `OverrideTarget`), or why
 * it names none (a sentence for the 400). An IPv6 address is keyed by its /64, since an IPv6 client is
 * counted by its /64: the override applies to everyone in that /64, who share one bucket anyway.
 */
export function overrideTarget(subject: OverrideSubject, value: string): OverrideTarget | { problem: string } {
  if (subject === 'machine') {
    return MACHINE_ID.test(value)
      ? { subject, value, key: value }
      : { problem: 'must be a machine id: the 32 lower-case hex characters of /etc/machine-id' };
  }
  if (subject === 'cidr') return networkTarget(value);
  if (value.includes('/')) return { problem: 'must be a single IP address; for a network use the subject "cidr"' };
  if (value.includes('%') || isIP(value) === 0)
    return { problem: 'must be an IPv4 or IPv6 address (no zone index, no port)' };
  const address = normaliseAddress(value);
  return { subject, value: address, key: rateLimitAddressKey(address) };
}

function networkTarget(value: string): OverrideTarget | { problem: string } {
  const parsed = parseNetwork(value);
  if ('problem' in parsed) return parsed;
  const { kind, prefix, network } = parsed;
  if (kind === 'ipv4' && prefix < WIDEST_IPV4_PREFIX)
    return {
      problem: `must be an IPv4 network from /${WIDEST_IPV4_PREFIX} to /32: an override never covers more than a /${WIDEST_IPV4_PREFIX}`,
    };
  if (kind === 'ipv6' && (prefix < WIDEST_IPV6_PREFIX || prefix > IPV6_CLIENT_PREFIX)) {
    return {
      problem: `must be an IPv6 network from /${WIDEST_IPV6_PREFIX} to /${IPV6_CLIENT_PREFIX}: an override never covers more than a /${WIDEST_IPV6_PREFIX}, and an IPv6 client is counted by its /${IPV6_CLIENT_PREFIX}, so no narrower network can be told apart (the subject "ip" sets one /${IPV6_CLIENT_PREFIX})`,
    };
  }
  return { subject: 'cidr', value: network, key: network };
}
