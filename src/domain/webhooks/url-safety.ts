import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The two switches of §15, from WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE. */
export interface WebhookSafety {
  allowHttp: boolean;
  allowPrivate: boolean;
}

const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Cloud metadata services: never a webhook target, whatever the switches say. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);

/** Why a URL or an address is refused: one sentence, safe to show an operator. */
export class WebhookUrlRefused extends Error {}

/**
 * The address a connection would reach, reduced to what it means: IPv4-mapped (::ffff:a.b.c.d) and
 * NAT64 (64:ff9b::/96) forms become the IPv4 address they carry, so that a private address cannot
 * hide inside an IPv6 one.
 */
function effectiveAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
    if (v6.range() === 'rfc6052') return ipaddr.fromByteArray(v6.toByteArray().slice(12));
  }
  return parsed;
}

/**
 * Refuses an address a webhook may not reach: metadata addresses always; anything but public unicast
 * (loopback, private, link-local, CGNAT, unique-local, 0.0.0.0, multicast, reserved, tunnel forms)
 * unless private targets are allowed. Answers whether the address is private (kept: no response excerpt).
 */
function checkAddress(address: string, safety: WebhookSafety): { isPrivate: boolean } {
  const effective = effectiveAddress(address);
  const normal = effective.toNormalizedString();
  const canonical = effective.kind() === 'ipv6' ? (effective as ipaddr.IPv6).toString() : normal;
  if (METADATA_ADDRESSES.has(canonical) || METADATA_ADDRESSES.has(normal))
    throw new WebhookUrlRefused(`${address} is a cloud metadata address: never a webhook target`);
  const isPrivate = effective.range() !== 'unicast';
  if (isPrivate && !safety.allowPrivate) {
    throw new WebhookUrlRefused(
      `${address} is not a public address (${effective.range()}); set WEBHOOK_ALLOW_PRIVATE=true to allow private targets`,
    );
  }
  return { isPrivate };
}

/** The host of a URL without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Checks a webhook URL as it is given (at creation): length, syntax, scheme, credentials, and a literal
 * address or `localhost` name. A name is resolved, and each address checked, at every delivery.
 */
export function checkWebhookUrl(text: string, safety: WebhookSafety): URL {
  if (text.length > MAX_WEBHOOK_URL_LENGTH)
    throw new WebhookUrlRefused(`the URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookUrlRefused('the URL is not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new WebhookUrlRefused('the URL must be https (or http with WEBHOOK_ALLOW_HTTP=true)');
  if (url.protocol === 'http:' && !safety.allowHttp)
    throw new WebhookUrlRefused('the URL must be https; set WEBHOOK_ALLOW_HTTP=true to allow http');
  if (url.username || url.password) throw new WebhookUrlRefused('the URL must not hold credentials (user:password@)');
  const host = bareHost(url);
  if (!host) throw new WebhookUrlRefused('the URL has no host');
  if (isIP(host)) checkAddress(host, safety);
  else if ((host === 'localhost' || host.endsWith('.localhost')) && !safety.allowPrivate) {
    throw new WebhookUrlRefused(`${host} is a loopback name; set WEBHOOK_ALLOW_PRIVATE=true to allow private targets`);
  }
  return url;
}

export interface CheckedTarget {
  url: URL;
  /** The address the connection must go to: the one that was checked. */
  address: string;
  family: 4 | 6;
  isPrivate: boolean;
}

/** Resolves a webhook URL's host and checks every address it resolves to (at delivery); the first is the one to connect to. */
export async function resolveWebhookTarget(
  text: string,
  safety: WebhookSafety,
  resolve: (host: string) => Promise<string[]> = resolveHost,
): Promise<CheckedTarget> {
  const url = checkWebhookUrl(text, safety);
  const host = bareHost(url);
  const addresses = isIP(host) ? [host] : await resolve(host);
  if (addresses.length === 0) throw new WebhookUrlRefused(`${host} resolves to no address`);
  let isPrivate = false;
  for (const address of addresses) isPrivate = checkAddress(address, safety).isPrivate || isPrivate;
  const address = addresses[0]!;
  return { url, address, family: isIP(address) === 6 ? 6 : 4, isPrivate };
}

async function resolveHost(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}
