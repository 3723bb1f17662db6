import { errorCatalog, errorCodes } from './errors.js';
import type { Router } from './http/router.js';

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

**Envelope.** Success: \`{"data": {...}, "meta": {"message": "..."}}\`. Every non-2xx answer, on every route:
\`{"error": {"code": "...", "message": "..."}}\`. The \`code\` is stable and machine-readable; the message is safe to show.

**Timestamps** are ISO 8601 in whole seconds with a numeric UTC offset, e.g. \`2026-11-22T10:00:00+00:00\`. An install code or token is valid until, not including, the second its expiry states.

**Request ids.** Every answer carries \`X-Request-Id\` (yours, if you sent a sane one). Quote it when reporting a problem.

**Bodies** are JSON (\`Content-Type: application/json\`, otherwise 415) of at most 64 KiB (otherwise 413).

## Error codes
| HTTP status | code | meaning |
|---|---|---|
${errorTable}
`.trim();

/** Built once at start from the registered routes; served at `/openapi.json` and written to openapi/openapi.json. */
export function buildOpenApiDocument(app: Router) {
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'SlowDNS activation service',
      version: API_VERSION,
      description,
      license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
    },
    // Relative on purpose: the committed document is the same for every deployment, and clients
    // (Scalar included) resolve it against the origin they fetched the document from.
    servers: [{ url: '/', description: 'This service: the origin that served this document.' }],
    tags: [
      { name: 'health', description: 'Liveness of the service and its database.' },
      { name: 'install-codes', description: 'Install codes for people on the SlowDNS page.' },
      { name: 'install', description: 'The installer lifecycle: precheck, activate, confirm, release.' },
      { name: 'keys', description: 'Public keys that verify precheck and install tokens.' },
      { name: 'legacy', description: 'Version-less routes used by server agents and the installer.' },
    ],
  });
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
