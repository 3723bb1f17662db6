import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The two switches of §15, from WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE; the identity issuers of §25 are
 * fetched under the same checks with their own two (`switches` names them in what a refusal says).
 */
export interface WebhookSafety {
  allowHttp: boolean;
  allowPrivate: boolean;
  switches?: { http: string; private: string };
}

const WEBHOOK_SWITCHES = { http: 'WEBHOOK_ALLOW_HTTP', private: 'WEBHOOK_ALLOW_PRIVATE' };

const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Cloud metadata and credential services (AWS, ECS task roles, EKS pod identity, Alibaba): never a webhook
 * target, whatever the switches say, in whatever form they are written (DESIGN §23).
 */
const METADATA_ADDRESSES = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  '100.100.100.200',
  'fd00:ec2::254',
  'fd00:ec2::23',
]);

/** Why a URL or an address is refused: one sentence, safe to show an operator. */
export class WebhookUrlRefused extends Error {}

const ipv4At = (bytes: number[], at: number, invert = false): ipaddr.IPv4 =>
  new ipaddr.IPv4(bytes.slice(at, at + 4).map((b) => (invert ? b ^ 0xff : b)));

/**
 * The IPv4 addresses an IPv6 address carries, in every form that routes to or stands for one:
 * IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96), NAT64
 * (64:ff9b::/96 and the local-use 64:ff9b:1::/48), 6to4 (2002::/16), Teredo (2001::/32: its server and
 * its client, whose bits are inverted) and ISATAP (an interface id of 0:5efe or 200:5efe, any prefix).
 */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4[] {
  const bytes = v6.toByteArray();
  const p = v6.parts;
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  const found: ipaddr.IPv4[] = [];
  if (zeros(0, 5) && (p[5] === 0xffff || p[5] === 0)) found.push(ipv4At(bytes, 12)); // mapped, compatible
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) found.push(ipv4At(bytes, 12)); // translated
  if (p[0] === 0x64 && p[1] === 0xff9b && (zeros(2, 6) || p[2] === 1)) found.push(ipv4At(bytes, 12)); // NAT64
  if (p[0] === 0x2002) found.push(ipv4At(bytes, 2)); // 6to4
  if (p[0] === 0x2001 && p[1] === 0) found.push(ipv4At(bytes, 4), ipv4At(bytes, 12, true)); // Teredo
  if ((p[4] === 0 || p[4] === 0x200) && p[5] === 0x5efe) found.push(ipv4At(bytes, 12)); // ISATAP
  return found;
}

/**
 * The address a connection would reach, reduced to what it means: an IPv6 address that only stands for an
 * IPv4 one (mapped, translated, compatible, NAT64) becomes that IPv4 address, so that a private address
 * cannot hide inside an IPv6 one; the others (6to4, Teredo, ISATAP) are judged with what they carry.
 */
function addressesOf(address: string): { effective: ipaddr.IPv4 | ipaddr.IPv6; carried: ipaddr.IPv4[] } {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return { effective: parsed, carried: [] };
  const v6 = parsed as ipaddr.IPv6;
  const carried = embeddedIPv4(v6);
  const p = v6.parts;
  const standsFor =
    (p.slice(0, 5).every((part) => part === 0) &&
      (p[5] === 0xffff || p[5] === 0) &&
      !p.slice(0, 7).every((x) => x === 0)) ||
    (p.slice(0, 4).every((part) => part === 0) && p[4] === 0xffff && p[5] === 0) ||
    (p[0] === 0x64 && p[1] === 0xff9b);
  return standsFor ? { effective: carried[0]!, carried: carried.slice(1) } : { effective: v6, carried };
}

const isMetadata = (address: ipaddr.IPv4 | ipaddr.IPv6): boolean =>
  METADATA_ADDRESSES.has(address.kind() === 'ipv6' ? (address as ipaddr.IPv6).toRFC5952String() : address.toString());

/**
 * Refuses an address a webhook may not reach: metadata addresses always, in any form; anything but public
 * unicast (loopback, private, link-local, CGNAT, unique-local, 0.0.0.0, multicast, reserved, tunnel forms,
 * and every IPv6 form carrying such an IPv4 address) unless private targets are allowed. Answers whether
 * the address is private (kept: no response excerpt).
 */
function checkAddress(address: string, safety: WebhookSafety): { isPrivate: boolean } {
  const { effective, carried } = addressesOf(address);
  const all = [effective, ...carried];
  if (all.some(isMetadata)) throw new WebhookUrlRefused(`${address} is a cloud metadata address: never reached`);
  const notPublic = all.find((a) => a.range() !== 'unicast');
  if (notPublic && !safety.allowPrivate) {
    throw new WebhookUrlRefused(
      `${address} is not a public address (${notPublic.range()}); set ${(safety.switches ?? WEBHOOK_SWITCHES).private}=true to allow private targets`,
    );
  }
  return { isPrivate: notPublic !== undefined };
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
  const switches = safety.switches ?? WEBHOOK_SWITCHES;
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new WebhookUrlRefused(`the URL must be https (or http with ${switches.http}=true)`);
  if (url.protocol === 'http:' && !safety.allowHttp)
    throw new WebhookUrlRefused(`the URL must be https; set ${switches.http}=true to allow http`);
  if (url.username || url.password) throw new WebhookUrlRefused('the URL must not hold credentials (user:password@)');
  const host = bareHost(url);
  if (!host) throw new WebhookUrlRefused('the URL has no host');
  if (isIP(host)) checkAddress(host, safety);
  else if ((host === 'localhost' || host.endsWith('.localhost')) && !safety.allowPrivate) {
    throw new WebhookUrlRefused(`${host} is a loopback name; set ${switches.private}=true to allow private targets`);
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

/** A `lookup` that answers only the checked address: DNS cannot move a request inward between the check and the connection. */
export function lookupOnly(target: Pick<CheckedTarget, 'address' | 'family'>): LookupFunction {
  const { address, family } = target;
  return (_hostname, opts, callback) => {
    if ((opts as { all?: boolean }).all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
