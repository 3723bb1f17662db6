/**
 * Every response header the service documents, once, as `components.headers`. Routes reference them
 * with `headerRef(name)`; the document builder adds the ones every answer carries (`commonResponseHeaders`)
 * to every response of every operation, and `errorResponses` adds the ones an error code brings.
 */
export const responseHeaders = {
  'X-Request-Id': {
    description:
      'The id of this request: the one the client sent in `X-Request-Id` when it was sane (1 to 128 characters of `[A-Za-z0-9._:-]`), otherwise a new UUID. On every answer; quote it when reporting a problem.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$', maxLength: 128 },
    example: '5b0c2f4e-8d1a-4c3b-9e7f-2a6d8c4b1e90',
  },
  traceresponse: {
    description:
      "Only while the service sends traces (its operator set the `OTEL_*` variables): the trace this request was recorded in, `00-<trace id>-<span id>-<flags>` (W3C Trace Context Level 2), the span being the service's own span of this request. The trace id is the one of the `traceparent` you sent, when you sent one; flags `01` when the trace is recorded. Not on the health probes.",
    required: false,
    schema: { type: 'string', pattern: '^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$', maxLength: 55 },
    example: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  },
  'X-Content-Type-Options': {
    description: 'Always `nosniff`: browsers must not guess another content type. On every answer.',
    required: true,
    schema: { type: 'string', const: 'nosniff' },
    example: 'nosniff',
  },
  'Retry-After': {
    description:
      'Seconds to wait before retrying: on 429, until the exhausted rate-limit bucket ends (the latest one, when several are exhausted); on 503, while the database is unreachable.',
    required: true,
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 86_400 },
    example: 720,
  },
  'RateLimit-Policy': {
    description:
      'On the answers of a rate-limited route once its limits were checked (always on its 2xx and 429 answers; not on a refusal made before the limits, such as 400 or 426): the limits of the route, one item per policy, `"name";q=<requests>;w=<window seconds>` (draft-ietf-httpapi-ratelimit-headers-11).',
    required: false,
    schema: {
      type: 'string',
      maxLength: 512,
      pattern: '^"[a-z0-9-]{1,64}";q=[0-9]{1,9};w=[0-9]{1,9}(, "[a-z0-9-]{1,64}";q=[0-9]{1,9};w=[0-9]{1,9})*$',
    },
    example: '"precheck-ip-day";q=10;w=86400, "precheck-machine-day";q=10;w=86400',
  },
  RateLimit: {
    description:
      'Next to `RateLimit-Policy`: where this client stands in each policy, `"name";r=<requests remaining>;t=<seconds until the bucket resets>`.',
    required: false,
    schema: {
      type: 'string',
      maxLength: 512,
      pattern: '^"[a-z0-9-]{1,64}";r=[0-9]{1,9};t=[0-9]{1,9}(, "[a-z0-9-]{1,64}";r=[0-9]{1,9};t=[0-9]{1,9})*$',
    },
    example: '"precheck-ip-day";r=9;t=1800, "precheck-machine-day";r=9;t=1800',
  },
  'WWW-Authenticate': {
    description:
      'The RFC 6750 challenge of a refused bearer token: `Bearer realm="slowdns-agent"` or `Bearer realm="slowdns-operator"`, with `error="invalid_token"` when a token was sent.',
    required: true,
    schema: {
      type: 'string',
      maxLength: 128,
      pattern: '^Bearer realm="slowdns-(agent|operator)"(, error="invalid_token")?$',
    },
    example: 'Bearer realm="slowdns-agent", error="invalid_token"',
  },
  Allow: {
    description: 'The methods the path accepts (`HEAD` wherever `GET` is).',
    required: true,
    schema: { type: 'string', maxLength: 128, pattern: '^[A-Z]{3,7}(, [A-Z]{3,7})*$' },
    example: 'POST',
  },
  'Cache-Control': {
    description:
      'Whether and how long the answer may be cached; where a route sets it, its documentation says the value.',
    required: true,
    schema: { type: 'string', maxLength: 128, pattern: '^[a-z0-9=, -]{1,128}$' },
    example: 'no-store',
  },
  'Set-Cookie': {
    description:
      'The browser session cookie `slowdns_browser` (HttpOnly, SameSite=Lax, Path=/, Max-Age; Secure when `PUBLIC_BASE_URL` is https), only when the request had no valid session; and, after a `?lang=` link, `slowdns_lang` (the language picked, for a year).',
    required: false,
    schema: { type: 'string', maxLength: 512, pattern: '^slowdns_(browser|lang)=[A-Za-z0-9._-]{1,128}; ' },
    example:
      'slowdns_browser=q0Hc8Qp3y9oZ1xVb2L7nTgW4eK6mJ5rA8sD3fU0iN1c; Max-Age=86400; Path=/; HttpOnly; SameSite=Lax',
  },
  Vary: {
    description:
      'The request headers the answer depends on: the page is in the language `Accept-Language` or the `slowdns_lang` cookie chose, so a cache keeps one copy per language.',
    required: true,
    schema: { type: 'string', maxLength: 128, pattern: '^[A-Za-z-]{1,40}(, ?[A-Za-z-]{1,40})*$' },
    example: 'Accept-Language, Cookie',
  },
  'Content-Language': {
    description: 'The language the page is written in (a BCP 47 tag: `en`, `fa`, `zh-Hans`, …).',
    required: true,
    schema: { type: 'string', maxLength: 35, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$' },
    example: 'fa',
  },
  'Content-Security-Policy': {
    description: "What the page may load: only this service's own scripts, styles and API.",
    required: true,
    schema: { type: 'string', maxLength: 1024 },
    example:
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  },
  'Idempotent-Replayed': {
    description:
      'Only on the answer of an admin `POST` repeated with the `Idempotency-Key` of a request already answered: `true`, and the status and body are the ones the first request was answered (its change is not made again).',
    required: false,
    schema: { type: 'string', const: 'true' },
    example: 'true',
  },
  'Referrer-Policy': {
    description: 'Always `no-referrer`.',
    required: true,
    schema: { type: 'string', const: 'no-referrer' },
    example: 'no-referrer',
  },
} as const;

export type ResponseHeaderName = keyof typeof responseHeaders;

/** The headers of every answer, on every route: added to every documented response by the document builder. */
export const commonResponseHeaders: ResponseHeaderName[] = ['X-Request-Id', 'traceresponse', 'X-Content-Type-Options'];

export interface HeaderRef {
  $ref: `#/components/headers/${ResponseHeaderName}`;
  description?: string;
}

/** A reference to a documented header; `description` says what this route sends, when the component is general. */
export function headerRef(name: ResponseHeaderName, description?: string): HeaderRef {
  return description ? { $ref: `#/components/headers/${name}`, description } : { $ref: `#/components/headers/${name}` };
}

/** Header references for a response, by name. */
export function headerRefs(...names: ResponseHeaderName[]): Record<string, HeaderRef> {
  return Object.fromEntries(names.map((name) => [name, headerRef(name)]));
}
