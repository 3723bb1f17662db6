import { sha256Hex } from '../tokens/secret-hash.js';

/**
 * Request headers a browser sends the same way on every request and that differ between browsers.
 * Volatile ones (cookies, Referer, Accept of the page vs. fetch) would give one browser many fingerprints.
 */
export const FINGERPRINT_HEADERS = [
  'user-agent',
  'accept-language',
  'sec-ch-ua',
  'sec-ch-ua-platform',
  'sec-ch-ua-mobile',
] as const;

export const BROWSER_SIGNAL_MAX_LENGTH = 512;

/**
 * The browser fingerprint the issue limit counts: SHA-256 of the stable headers plus the optional
 * signal the page computes (screen, time zone…). Only this hash, hashed again per limit, is stored.
 * A client that sends none of these headers shares one fingerprint with every other such client.
 */
export function browserFingerprint(header: (name: string) => string | undefined, signal: string | undefined): string {
  const parts = FINGERPRINT_HEADERS.map((name) => (header(name) ?? '').trim());
  return sha256Hex(JSON.stringify([...parts, signal ?? '']));
}
