import { sha256Hex } from '../tokens/secret-hash.js';

/**
 * RFC 8785 (JCS): JSON with object members sorted by their names' UTF-16 code units, no whitespace, and
 * numbers and strings as ECMAScript's JSON.stringify writes them (which is what the RFC specifies).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The body as its fingerprint reads it: RFC 8785 when it is JSON, else its text as sent (such a body is refused anyway). */
function canonicalBody(body: string): string {
  if (body.trim() === '') return '';
  try {
    return canonicalJson(JSON.parse(body));
  } catch {
    return body;
  }
}

/** The query's pairs sorted by name, then value, each percent-encoded as URLSearchParams writes them. */
function sortedQuery(search: URLSearchParams): string {
  const pairs = [...search].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  return new URLSearchParams(pairs).toString();
}

/**
 * What a request under an Idempotency-Key is recognised by (DESIGN §27): the SHA-256 of its path, its sorted
 * query and its body in RFC 8785 form, so the same request re-sent with its members in another order or
 * other spacing is the same request, and any other change is another.
 */
export function requestFingerprint(request: { path: string; search: URLSearchParams; body: string }): string {
  return sha256Hex(`${request.path}\n${sortedQuery(request.search)}\n${canonicalBody(request.body)}`);
}
