/*
 * Compact JWS (RFC 7515) with Ed25519 only (RFC 8037, `alg: EdDSA`), through node:crypto's one-shot
 * sign and verify. jose does the same through WebCrypto, which hands every signature and every check
 * to the thread pool and back: this takes about half the CPU per token and never waits.
 *
 * Verification is deliberately narrow: three base64url parts (nothing else in them), a JSON object
 * header with `alg` exactly `EdDSA` and no `crit` or `b64` (no extension is understood, so none is
 * accepted), a 64-byte signature that verifies under the key the header's `kid` names, and a JSON
 * object payload. The claims are the caller's to check.
 */
import { sign, verify, type KeyObject } from 'node:crypto';
import { TOKEN_ALGORITHM } from './signing-keys.js';

export type JsonObject = Record<string, unknown>;

/** Raised for any token that is not a well-formed, correctly signed compact JWS; says no more. */
export class JwsInvalid extends Error {}

const encodeJson = (value: JsonObject) => Buffer.from(JSON.stringify(value)).toString('base64url');

export function signCompactJws(header: JsonObject, payload: JsonObject, key: KeyObject): string {
  const signingInput = `${encodeJson({ ...header, alg: TOKEN_ALGORITHM })}.${encodeJson(payload)}`;
  return `${signingInput}.${sign(null, Buffer.from(signingInput), key).toString('base64url')}`;
}

/** Node's base64url decoder skips characters outside the alphabet: they are refused here first. */
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const ED25519_SIGNATURE_BYTES = 64;

function decodeJsonObject(part: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new JwsInvalid();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JwsInvalid();
  return value as JsonObject;
}

/**
 * The header and payload of a token whose signature verifies under `keyFor(header)`; JwsInvalid
 * otherwise. `signedHere` says the caller itself signed exactly these bytes (see SignedTokenMemo): then
 * every check but the signature's is still made, and the key must still be found.
 */
export async function verifyCompactJws(
  token: string,
  keyFor: (header: JsonObject) => Promise<KeyObject | undefined>,
  signedHere = false,
): Promise<{ header: JsonObject; payload: JsonObject }> {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) throw new JwsInvalid();
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  const header = decodeJsonObject(encodedHeader);
  if (header.alg !== TOKEN_ALGORITHM || 'crit' in header || 'b64' in header) throw new JwsInvalid();
  const key = await keyFor(header);
  const signature = Buffer.from(encodedSignature, 'base64url');
  if (!key || signature.length !== ED25519_SIGNATURE_BYTES) throw new JwsInvalid();
  if (!signedHere && !verify(null, Buffer.from(`${encodedHeader}.${encodedPayload}`), key, signature)) throw new JwsInvalid();
  return { header, payload: decodeJsonObject(encodedPayload) };
}
