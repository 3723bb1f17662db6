import { hash, randomBytes } from 'node:crypto';

/**
 * SHA-256 hex: how codes, cookies, agent tokens and rate-limit subjects are stored. The one-shot
 * `hash` makes no Hash object: 1.1 µs a call here against 2.6 µs for createHash, and a request makes several.
 */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** A 256-bit random secret, URL-safe. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** `prefix` + hex of `bytes` random bytes, e.g. `act_` + 16 hex characters. */
export function randomId(prefix: string, bytes = 8): string {
  return `${prefix}${randomBytes(bytes).toString('hex')}`;
}
