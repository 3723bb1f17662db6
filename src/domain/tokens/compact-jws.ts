/*
 * Compact JWS (RFC 7515) with Ed25519 only (RFC 8037, `alg: EdDSA`), through node:crypto's one-shot
 * sign and verify. jose does the same through WebCrypto, which hands every signature and every check
 * to the thread pool and back: this takes about half the CPU per token.
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

interface SigningJob {
  input: Buffer;
  key: KeyObject;
  resolve(signature: Buffer): void;
  reject(error: unknown): void;
}

/**
 * Signatures asked for during one turn of the event loop are made together at its end (setImmediate):
 * under load, several at a time (about 5 on average at concurrency 16). Made one by one between other
 * work, each found Ed25519's tables gone from the CPU cache and cost about twice what it costs in a
 * loop (90 µs against 40 here); made together, precheck and activate spend 10–25 % less CPU. Alone,
 * a signature waits for no more than the rest of the current turn.
 */
const queued: SigningJob[] = [];

function signQueued(): void {
  for (const job of queued.splice(0)) {
    try {
      job.resolve(sign(null, job.input, job.key));
    } catch (error) {
      job.reject(error);
    }
  }
}

function signSoon(input: Buffer, key: KeyObject): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (queued.push({ input, key, resolve, reject }) === 1) setImmediate(signQueued);
  });
}

export async function signCompactJws(header: JsonObject, payload: JsonObject, key: KeyObject): Promise<string> {
  return (await signCompactJwsParts(header, payload, key)).token;
}

/** The token, and its header and payload exactly as they read back from it (JSON-safe values only). */
export async function signCompactJwsParts(
  header: JsonObject,
  payload: JsonObject,
  key: KeyObject,
): Promise<{ token: string; header: JsonObject; payload: JsonObject }> {
  // Not `{ ...header, alg }`: on Node 20 a property after a spread takes V8's slow path (docs/development.md,
  // "A spread goes last"); the same own fields, `alg` replacing any other.
  const fullHeader: JsonObject = Object.assign({}, header, { alg: TOKEN_ALGORITHM });
  const signingInput = `${encodeJson(fullHeader)}.${encodeJson(payload)}`;
  const token = `${signingInput}.${(await signSoon(Buffer.from(signingInput), key)).toString('base64url')}`;
  return { token, header: fullHeader, payload };
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
 * every check but the signature's is still made, and the key must still be found. Given as the parts
 * the caller signed, the token is not decoded again either: the checks of its encoding held when this
 * process encoded it, and only the key is looked up.
 */
export async function verifyCompactJws(
  token: string,
  keyFor: (header: JsonObject) => Promise<KeyObject | undefined>,
  signedHere: boolean | { readonly header: JsonObject; readonly payload: JsonObject } = false,
): Promise<{ header: JsonObject; payload: JsonObject }> {
  if (typeof signedHere === 'object') {
    if (!(await keyFor(signedHere.header))) throw new JwsInvalid();
    return { header: signedHere.header, payload: signedHere.payload };
  }
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) throw new JwsInvalid();
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  const header = decodeJsonObject(encodedHeader);
  if (header.alg !== TOKEN_ALGORITHM || 'crit' in header || 'b64' in header) throw new JwsInvalid();
  const key = await keyFor(header);
  const signature = Buffer.from(encodedSignature, 'base64url');
  if (!key || signature.length !== ED25519_SIGNATURE_BYTES) throw new JwsInvalid();
  if (!signedHere && !verify(null, Buffer.from(`${encodedHeader}.${encodedPayload}`), key, signature))
    throw new JwsInvalid();
  return { header, payload: decodeJsonObject(encodedPayload) };
}
