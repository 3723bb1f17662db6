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

/**
 * Random bytes for ids, drawn from the system's generator 4 KiB at a time and each used once, as Node
 * does for `randomUUID`: one `randomBytes` call costs about 3 µs here however few bytes it asks for
 * (7 µs inside a request), against 0.15 µs for an id cut from the pool. Secrets (`randomSecret`, codes)
 * are drawn fresh.
 */
const ID_POOL_BYTES = 4096;
let idPool = Buffer.alloc(0);
let idPoolOffset = 0;

/** `prefix` + hex of `bytes` random bytes, e.g. `act_` + 16 hex characters. */
export function randomId(prefix: string, bytes = 8): string {
  if (!Number.isInteger(bytes) || bytes < 1)
    throw new RangeError(`an id takes a whole number of bytes, at least 1 (not ${bytes})`);
  if (idPoolOffset + bytes > idPool.length) {
    idPool = randomBytes(Math.max(ID_POOL_BYTES, bytes));
    idPoolOffset = 0;
  }
  return `${prefix}${idPool.toString('hex', idPoolOffset, (idPoolOffset += bytes))}`;
}
