import { createRoute } from '@hono/zod-openapi';
import { getCookie } from 'hono/cookie';
import { toIsoOffset } from '../clock.js';
import { ApiError } from '../errors.js';
import { browserFingerprint, FINGERPRINT_HEADERS } from '../domain/browser-sessions/fingerprint.js';
import { BROWSER_SESSION_COOKIE, browserSessionHash } from '../domain/browser-sessions/sessions.js';
import { approvalAtIssue } from '../domain/install-codes/approval.js';
import { issueInstallCode } from '../domain/install-codes/issue-page-code.js';
import { checksFor } from '../domain/rate-limits/limiter.js';
import { admitCounted, checkSources } from '../http/enforce-rate-limits.js';
import { rateLimitDescription, rateLimitedResponse, rateLimitHeaderDocs } from '../http/rate-limit-headers.js';
import { changeContext } from '../http/change-context.js';
import type { Router } from '../http/router.js';
import { emptyJsonBodyAsObject } from '../http/body-guards.js';
import { assertSameOrigin } from '../http/same-origin.js';
import { errorResponses, successEnvelope } from '../schemas/envelope.js';
import { headerRef } from '../schemas/response-headers.js';
import { IssuedInstallCodeSchema, IssueRequestSchema } from '../schemas/install-code.js';
import type { RouteDeps } from '../deps.js';
import { prose } from '../openapi-prose.js';

const issue = createRoute({
  method: 'post',
  path: '/api/v2/slowdns/code/issue',
  operationId: 'issueInstallCode',
  tags: ['install-codes'],
  summary: 'Issue an install code',
  description: prose`Issues a new install code to the browser holding a valid \`${BROWSER_SESSION_COOKIE}\` cookie (load \`GET
    /slowdns\` first). No body is required; the page may send \`{"browser_signal": "..."}\` (at most 512
    characters) to refine the browser fingerprint, and \`{"require_approval": true}\` to approve each machine
    before it can use the code (below). The code is shown once: the service keeps only its hash.
    \`install_code_id\` is the code's public handle, not the code: events and operator routes name the code by
    it. It stays \`issued\` for \`ttl_seconds\` (\`INSTALL_CODE_TTL_SECONDS\`, 900 by default).

Requests from another site (an \`Origin\` other than this service, or \`Sec-Fetch-Site\`
    \`cross-site\`/\`same-site\`) are refused with 403 \`cross_site_request\`; a missing or expired session
    with 403 \`browser_session_required\`, before any limit is counted.

The **browser fingerprint** is the SHA-256 of the request headers ${FINGERPRINT_HEADERS.map((h) => `\`${h}\``).join(', ')} and
    of \`browser_signal\`; it is stored only hashed, as a rate-limit subject. Every part of it is sent by the
    client, so a script can change \`browser_signal\` (or a header) on each request and get a new fingerprint
    every time: \`issue-fingerprint-day\` is a speed bump for ordinary browsers, not a cap. The real caps are
    the IP limits and the session limit, and new sessions are themselves limited per IP (\`session-ip-hour\`
    on \`GET /slowdns\`).

**Approval** (DESIGN §14, \`APPROVAL_POLICY\`: \`off\`, \`optional\` by default, \`required\`): a code
    issued with \`require_approval\` (always under \`required\`; never under \`off\`, where the field is
    ignored) makes each machine that prechecks it wait: the page shows the precheck (\`GET
    /api/v2/slowdns/code/status\`, \`prechecks\`) and the person approves (\`POST
    /api/v2/slowdns/code/approve\`) or denies it (\`POST /api/v2/slowdns/code/deny\`). The answer's
    \`require_approval\` says which it is.

${rateLimitDescription('issue')}`,
  security: [{ browserSession: [] }],
  middleware: [emptyJsonBodyAsObject],
  request: { body: { required: false, content: { 'application/json': { schema: IssueRequestSchema } } } },
  responses: {
    201: {
      description: 'The new install code.',
      headers: {
        ...rateLimitHeaderDocs('issue'),
        'Cache-Control': headerRef('Cache-Control', 'Always `no-store`: the code is shown once.'),
      },
      content: {
        'application/json': {
          schema: successEnvelope(IssuedInstallCodeSchema),
          example: {
            data: {
              install_code_id: 'ic_5b2e9f0c81d4a7e3',
              install_code: 'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N',
              install_code_hint: 'SDNS-SD-…HX3W8N',
              expires_at: '2026-11-22T10:15:00+00:00',
              ttl_seconds: 900,
              require_approval: false,
            },
            meta: { message: 'Install code issued. Enter it in the installer before it expires.' },
          },
        },
      },
    },
    ...errorResponses(
      'validation_failed',
      'browser_session_required',
      'cross_site_request',
      'unsupported_media_type',
      'payload_too_large',
    ),
    429: rateLimitedResponse('issue'),
  },
});

export function registerInstallCodes(app: Router, deps: RouteDeps): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'browserSession', {
    type: 'apiKey',
    in: 'cookie',
    name: BROWSER_SESSION_COOKIE,
    description: 'The session cookie `GET /slowdns` sets. HttpOnly: the page cannot read it, the browser sends it.',
  });
  app.openapi(issue, async (c) => {
    // Every answer of this route, refusals included, is about one person's code: never cache it.
    c.header('Cache-Control', 'no-store');
    assertSameOrigin(c, deps.config.publicBaseUrl);
    const now = deps.clock.now();
    // The session is checked by the statement that issues the code; without a cookie there is none to check.
    const session = browserSessionHash(getCookie(c, BROWSER_SESSION_COOKIE));
    if (!session) throw new ApiError('browser_session_required');
    const body = c.req.valid('json');
    const fingerprint = browserFingerprint((name) => c.req.header(name), body.browser_signal);
    const requireApproval = approvalAtIssue(deps.config.approvalPolicy, body.require_approval);
    const limits = checksFor('issue', { ip: c.get('clientKey'), session, fingerprint }, await checkSources(deps, now));
    const ttl = deps.config.installCodeTtlSeconds;
    const issued = admitCounted(
      c,
      await issueInstallCode(deps.db, {
        input: { prefix: deps.config.installCodePrefix, ttlSeconds: ttl, browserSessionHash: session, requireApproval },
        now,
        context: changeContext(c, 'browser'),
        limits,
        hashes: c.get('keyedHashes'),
      }),
    );
    return c.json(
      {
        data: {
          install_code_id: issued.id,
          install_code: issued.code,
          install_code_hint: issued.hint,
          expires_at: toIsoOffset(issued.expiresAt),
          ttl_seconds: ttl,
          require_approval: issued.requireApproval,
        },
        meta: { message: 'Install code issued. Enter it in the installer before it expires.' },
      },
      201,
    );
  });
}
