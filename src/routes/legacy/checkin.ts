import { createRoute } from '@hono/zod-openapi';
import { createMiddleware } from 'hono/factory';
import { HTTPException } from 'hono/http-exception';
import type { CheckinOutcome } from '../../domain/servers/checkins.js';
import { counterDecision } from '../../domain/rate-limits/limiter.js';
import { bucketStart, policiesFor } from '../../domain/rate-limits/policies.js';
import { sha256Hex } from '../../domain/tokens/secret-hash.js';
import { CHECKIN_INTERVAL_SECONDS } from '../../domain/servers/registration.js';
import { ApiError } from '../../errors.js';
import type { AppEnv } from '../../http/app-env.js';
import { applyRateLimitDecision, checkSources } from '../../http/enforce-rate-limits.js';
import { jsonBody } from '../../http/json-body.js';
import { rateLimitDescription, rateLimitedResponse, rateLimitHeaderDocs } from '../../http/rate-limit-headers.js';
import type { Router } from '../../http/router.js';
import { errorResponses, successEnvelope } from '../../schemas/envelope.js';
import { type AgentReport, CheckinRequestSchema, CheckinResultSchema } from '../../schemas/server.js';
import type { RouteDeps } from '../../deps.js';
import { legacyBodyLimit } from './body-limit.js';
import { bearerRejected, bearerToken } from '../../http/credentials.js';
import { prose } from '../../openapi-prose.js';

const checkin = createRoute({
  method: 'post',
  path: '/checkin',
  operationId: 'checkInServer',
  tags: ['legacy'],
  summary: 'Check in a server',
  description: prose`Called by the server agent every \`checkin_interval_seconds\` with its agent token. Records when the
    server was last seen and what it reported (agent version, uptime, the state of at most 32 services), and
    answers its \`status\` and the interval until the next check-in.

A revoked server's check-in answers 200 with \`status: "revoked"\` and records nothing: the agent should
    stop. A missing or unknown agent token is 401 \`agent_token_invalid\` with \`WWW-Authenticate: Bearer\`.
    Bodies are limited to 8 KiB (413 \`payload_too_large\`); fields this version does not know are ignored and
    not stored, so newer agents keep working.

Order of checks: first the size limit every route has (413 over 64 KiB), then the agent token (401), then
    the limit, then the body (413 over 8 KiB, 415 \`unsupported_media_type\` when it is not JSON, 400
    \`validation_failed\`): a check-in with a bad body still counts, one without a valid token does not (there
    is no server to count it for).

${rateLimitDescription('checkin')}`,
  security: [{ agentToken: [] }],
  request: jsonBody(CheckinRequestSchema),
  responses: {
    200: {
      description: "The server's status and the next interval.",
      headers: rateLimitHeaderDocs('checkin'),
      content: {
        'application/json': {
          schema: successEnvelope(CheckinResultSchema),
          example: {
            data: { status: 'active', checkin_interval_seconds: CHECKIN_INTERVAL_SECONDS },
            meta: { message: 'Check-in recorded.' },
          },
        },
      },
    },
    ...errorResponses('validation_failed', 'agent_token_invalid', 'unsupported_media_type', 'payload_too_large'),
    429: rateLimitedResponse('checkin'),
  },
});

/** The app's variables plus the check-in's statement, ready once the agent token is read (by `checkinStatement`). */
interface CheckinEnv {
  Variables: AppEnv['Variables'] & { checkIn?: (report: AgentReport) => Promise<{ status: 'active' | 'revoked' }> };
}

/** The answers a body gets before the handler: over 8 KiB, not JSON, not valid. */
function isBodyRefusal(error: unknown): boolean {
  if (error instanceof ApiError)
    return (
      error.code === 'payload_too_large' ||
      error.code === 'unsupported_media_type' ||
      error.code === 'validation_failed'
    );
  return error instanceof HTTPException && (error.status === 400 || error.status === 415);
}

/**
 * A check-in is one statement (src/domain/servers/checkins.ts: the server found by its token, the check-in
 * counted, the report recorded), shared with the check-ins around it, so it is made once the body is read;
 * its answers keep their order all the same: no token or an unknown one is 401 whatever the body, a full
 * bucket 429, then only the body's 413, 415 or 400. The handler makes it with the report; a body refused
 * before the handler makes it without one (counted, nothing recorded), and the body's answer gives way
 * to a 401 or a 429, or gets the `RateLimit` headers.
 */
function checkinStatement(deps: RouteDeps) {
  const policy = policiesFor('checkin')[0]!;
  return createMiddleware<CheckinEnv>(async (c, next) => {
    const token = bearerToken(c);
    if (!token) throw bearerRejected('agent_token_invalid', c.req.header('authorization') !== undefined);
    const now = deps.clock.now();
    const tokenHash = sha256Hex(token);
    // No override names a server (they name addresses, networks and machines): the policy's quota, as the profile scales it.
    const check = { policy, quota: (await checkSources(deps, now)).quotas.quotaFor(policy, tokenHash).quota };
    let made = false;
    const checkIn = async (report: AgentReport | null) => {
      made = true;
      const outcome = await deps.checkins.checkIn({
        tokenHash,
        now,
        bucketStart: bucketStart(now, policy.windowSeconds),
        quota: check.quota,
        report,
        address: c.get('observedIp'),
      });
      if (!outcome.found) throw bearerRejected('agent_token_invalid', true);
      applyRateLimitDecision(c, counterDecision(check, outcome.admitted ? outcome.count : null, now));
      return outcome as Extract<CheckinOutcome, { admitted: true }>;
    };
    c.set('checkIn', checkIn);
    await next();
    if (!made && isBodyRefusal(c.error)) await checkIn(null);
  });
}

export function registerCheckin(app: Router, deps: RouteDeps): void {
  app.openapi({ ...checkin, middleware: [checkinStatement(deps), legacyBodyLimit] as const }, async (c) => {
    const { status } = await c.get('checkIn')!(c.req.valid('json'));
    return c.json(
      {
        data: { status, checkin_interval_seconds: CHECKIN_INTERVAL_SECONDS },
        meta: { message: status === 'active' ? 'Check-in recorded.' : 'This server is revoked: stop the agent.' },
      },
      200,
    );
  });
}
