import { errorCatalog, errorCodes } from './errors.js';
import type { Router } from './http/router.js';
import { composeExamples } from './openapi-examples.js';
import { documentIdempotencyKeys, registerIdempotencyKeyParameter } from './openapi-idempotency.js';
import { typeObjectUnions } from './openapi-union-types.js';
import { envelopeOf } from './schemas/envelope.js';
import { commonResponseHeaders, headerRef, headerRefs, responseHeaders } from './schemas/response-headers.js';

export const API_VERSION = '2.0.0';

const errorTable = errorCodes
  .map((code) => `| ${errorCatalog[code].status} | \`${code}\` | ${errorCatalog[code].message} |`)
  .join('\n');

const description = `
The SlowDNS activation service hands short-lived **install codes** to people on the page \`GET /slowdns\`
and lets the installer running on their server trade such a code for a single-use **install token**:

1. \`POST /api/v2/slowdns/code/issue\`: the page (holding the \`slowdns_browser\` cookie) gets an install code.
2. \`POST /api/v2/slowdns/install/precheck\`: the installer checks the code and the machine identity and gets a precheck token.
3. \`POST /api/v2/slowdns/install/activate\`: after the operator confirms hostname and public IP, the installer gets an activation and its install token.
4. \`POST /api/v2/slowdns/install/confirm\`: once every service runs, the install token is consumed for good.
5. \`POST /api/v2/slowdns/install/release\`: if the install fails before confirm, the activation is released and the code restored for a retry.

An interrupted installer reads its install back with \`POST /api/v2/slowdns/install/status\` (activation id and install token) to resume or release.

**Shell-safe values.** Install codes, ids (\`act_…\`, \`srv_…\`) and tokens (precheck, install, agent) are made only of \`[A-Za-z0-9._-]\`: a shell installer without jq can cut them out of an answer with \`sed\`.

**Envelope.** Success: \`{"data": {...}, "meta": {"message": "..."}}\`. Every non-2xx answer, on every route:
\`{"error": {"code": "...", "message": "..."}}\`. The \`code\` is stable and machine-readable; the message is safe to show.

**Timestamps** are ISO 8601 in whole seconds with a numeric UTC offset, e.g. \`2026-11-22T10:00:00+00:00\`. An install code or token is valid until, not including, the second its expiry states.

**Request ids.** Every answer carries \`X-Request-Id\` (yours, if you sent a sane one). Quote it when reporting a problem.

**Bodies** are JSON (\`Content-Type: application/json\`, otherwise 415) of at most 64 KiB (otherwise 413).

**Guides.** This reference is generated from the code. The guides, one per reader, are in the service's source repository under \`docs/\` (its \`README.md\` is their map): \`docs/installers.md\` (trying it locally, the shell and TypeScript clients, exit codes, retry and resume), \`docs/integrators.md\` (the contract, errors, rate limits, versioning, legacy routes), \`docs/running.md\` (start-up and outages, PostgreSQL and poolers, signing keys, metrics, traces, pruning), \`docs/operators.md\` (the \`slowdns\` command, operator tokens, the admin API, the console, events, webhooks), \`docs/configuration.md\` (every environment variable), \`docs/deployment.md\` (a systemd unit, a container recipe, health probes, several instances, upgrades, backups) and \`docs/development.md\`.

## Error codes
| HTTP status | code | meaning |
|---|---|---|
${errorTable}
`.trim();

/** Every documented response header, once, as the document's `components.headers` (routes refer to them). */
function registerResponseHeaders(app: Router): void {
  for (const [name, header] of Object.entries(responseHeaders)) {
    app.openAPIRegistry.registerComponent('headers', name, header as never);
  }
}

/** Built once, at its first read, from the registered routes; served at `/openapi.json` and written to openapi/openapi.json. */
export function buildOpenApiDocument(app: Router) {
  registerResponseHeaders(app);
  registerIdempotencyKeyParameter(app);
  const document = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'SlowDNS activation service',
      version: API_VERSION,
      description,
      contact: { name: 'The operator of this SlowDNS service (quote the X-Request-Id of the answer in question)' },
      license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
    },
    // Relative on purpose: the committed document is the same for every deployment, and clients
    // (Scalar included) resolve it against the origin they fetched the document from.
    servers: [{ url: '/', description: 'This service: the origin that served this document.', 'x-internal': false }],
    tags: [
      { name: 'health', description: 'Liveness of the service and its database.' },
      { name: 'install-codes', description: 'Install codes for people on the SlowDNS page.' },
      {
        name: 'install',
        description:
          'The installer lifecycle: precheck, activate, confirm, release, and status to read an install back.',
      },
      { name: 'keys', description: 'Public keys that verify precheck and install tokens.' },
      { name: 'legacy', description: 'Version-less routes used by server agents and the installer.' },
      {
        name: 'admin',
        description:
          "The operator's API (`Authorization: Bearer <ADMIN_TOKEN>`): install codes, activations, servers and the event trail, newest first with cursors, and the operator actions.",
      },
    ],
  });
  documentIdempotencyKeys(document.paths as Parameters<typeof documentIdempotencyKeys>[0]);
  addDocumentedHeaders(document.paths as Record<string, Record<string, DocumentedOperation>>);
  // No webhooks: an empty `webhooks: {}` only says so less clearly than its absence.
  delete (document as { webhooks?: unknown }).webhooks;
  (document.components ??= {}).responses = unroutedResponses;
  composeExamples(
    document.components.schemas as Parameters<typeof composeExamples>[0],
    document.paths as Parameters<typeof composeExamples>[1],
  );
  typeObjectUnions(document.components.schemas as Parameters<typeof typeObjectUnions>[0]);
  return document;
}

interface DocumentedOperation {
  responses: Record<string, { headers?: Record<string, unknown> }>;
}

/**
 * Headers every route's answers carry, added here so no route (and no new one) can forget them:
 * `X-Request-Id`, `traceresponse` (optional: only while tracing is on) and `X-Content-Type-Options` on
 * every response, and on a rate-limited operation (one whose 429 declares `RateLimit`) its `RateLimit`
 * headers on every 2xx and 4xx answer.
 */
function addDocumentedHeaders(paths: Record<string, Record<string, DocumentedOperation>>): void {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const limits = operation.responses['429']?.headers;
      const limitHeaders =
        limits && 'RateLimit' in limits
          ? { 'RateLimit-Policy': limits['RateLimit-Policy'], RateLimit: limits.RateLimit }
          : undefined;
      for (const [status, response] of Object.entries(operation.responses)) {
        const limited = limitHeaders && /^[24]/.test(status) ? limitHeaders : {};
        response.headers = { ...headerRefs(...commonResponseHeaders), ...limited, ...response.headers };
      }
    }
  }
}

/** The answers of no operation: an unknown path (404) and a known path with another method (405). */
const unroutedResponses = {
  NotFound: {
    description: '`not_found`: no route has this path. Answered for any method.',
    headers: headerRefs(...commonResponseHeaders),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/ErrorEnvelope' },
        examples: { not_found: { value: envelopeOf('not_found') } },
      },
    },
  },
  MethodNotAllowed: {
    description: '`method_not_allowed`: the path exists, but not with this method; `Allow` lists the methods it takes.',
    headers: { ...headerRefs(...commonResponseHeaders), Allow: headerRef('Allow') },
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/ErrorEnvelope' },
        examples: { method_not_allowed: { value: envelopeOf('method_not_allowed') } },
      },
    },
  },
};

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
