import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset, wholeSecond } from '../../clock.js';
import type { RouteDeps } from '../../deps.js';
import {
  listRateLimitOverrides,
  rateLimitOverrideStatus,
  type RateLimitOverrideListItem,
} from '../../domain/admin-lists/rate-limit-override-list.js';
import { createRateLimitOverride, removeRateLimitOverride } from '../../domain/rate-limits/override-changes.js';
import { OVERRIDE_MAX_DAYS, OVERRIDE_QUOTA_MAX } from '../../domain/rate-limits/overrides.js';
import { OVERRIDES_MAX_AGE_SECONDS } from '../../domain/rate-limits/override-cache.js';
import { rateLimitPolicies } from '../../domain/rate-limits/policies.js';
import { ApiError } from '../../errors.js';
import { emptyJsonBodyAsObject } from '../../http/body-guards.js';
import { operatorChangeContext } from '../../http/change-context.js';
import { jsonBody } from '../../http/json-body.js';
import type { Router } from '../../http/router.js';
import { timeRange } from '../../schemas/admin/list.js';
import { overrideTarget } from '../../schemas/admin/override-target.js';
import {
  RateLimitOverrideIdParamsSchema,
  RateLimitOverrideListQuerySchema,
  RateLimitOverridePageSchema,
  RateLimitOverrideRecordSchema,
  RateLimitOverrideRemovalSchema,
  RateLimitOverrideRequestSchema,
} from '../../schemas/admin/rate-limit-overrides.js';
import { successEnvelope } from '../../schemas/envelope.js';
import {
  ADMIN_AUTH_SENTENCE,
  adminErrorResponses,
  adminOperation,
  EXPORT_SENTENCE,
  listAnswer,
  listResponse,
} from './admin-route.js';
import { prose } from '../../openapi-prose.js';

const PATH = '/api/v2/admin/rate-limit-overrides';

const RULES = prose`The most specific override in place for a request's subject sets the quota of its bucket: a single address
  before any network, a narrower network before a wider one; a machine override sets the per-machine limits.
  Counting is unchanged: a request is still counted in every limit of its step, all or none, in the step's one
  statement, against the quota of each bucket. An IPv6 client is counted by its /64, so an \`ip\` override of
  an IPv6 address sets that whole /64 and an IPv6 \`cidr\` is /32 to /64; an IPv4 \`cidr\` is /16 to /32. The
  limit is 1 to ${OVERRIDE_QUOTA_MAX} (an override never makes a limit unlimited) and \`expires_at\` at most ${OVERRIDE_MAX_DAYS} days
  ahead (every override ends by itself). Each instance keeps the overrides in memory and reads them again at
  most every ${OVERRIDES_MAX_AGE_SECONDS} s when it serves requests: one set or removed through any instance
  is in force on every instance within 10 s (at once on the instance that made the change).`;

const create = createRoute({
  method: 'post',
  path: PATH,
  operationId: 'createRateLimitOverride',
  ...adminOperation('write'),
  summary: 'Override a rate limit for an address, network or machine',
  description: prose`Sets the quota of one limit (\`limit_name\`) for one IP address, CIDR network or machine, until
    \`expires_at\`: higher to let a shared address (an office, a campus, a carrier-grade NAT) through, lower
    to hold one back. One override per limit and target: a new one for the same \`limit_name\`, \`subject\`
    and target replaces the one in place (listed as removed, \`Replaced by rlo_…\`). Recorded as
    \`rate_limit_override.created\` (and \`rate_limit_override.removed\` for one replaced) with the operator
    and the reason.

${RULES}

Refused with 400 \`validation_failed\`, nothing stored: a value that is not an address, network or machine
    id as \`subject\` says, a network wider than /16 (IPv4) or /32 (IPv6) or narrower than /64 (IPv6) or with
    host bits set, a limit not counted per IP or per machine, or of the other kind than the subject (a machine
    override of a per-IP limit), a limit below 1 or above ${OVERRIDE_QUOTA_MAX}, an \`expires_at\` missing,
    past or more than ${OVERRIDE_MAX_DAYS} days ahead, control characters (NUL included) in \`value\` or
    \`reason\`. ${ADMIN_AUTH_SENTENCE}`,
  request: jsonBody(RateLimitOverrideRequestSchema),
  responses: {
    201: {
      description: 'The override, in force.',
      content: { 'application/json': { schema: successEnvelope(RateLimitOverrideRecordSchema) } },
    },
    ...adminErrorResponses('unsupported_media_type', 'payload_too_large'),
  },
});

const list = createRoute({
  method: 'get',
  path: PATH,
  operationId: 'listRateLimitOverrides',
  ...adminOperation('read'),
  summary: 'List rate-limit overrides',
  description: prose`Overrides, newest set first, each with its \`status\` (\`active\`, \`expired\`, \`removed\`), who set it
    and why, and who removed it and why. Expired and removed ones stay listed (marked by \`status\`) as a
    record of what applied when; \`status=active\` lists those in force. Filters: \`status\`, \`limit_name\`,
    \`since\`/\`until\` on the time it was set. ${EXPORT_SENTENCE} ${ADMIN_AUTH_SENTENCE}`,
  request: { query: RateLimitOverrideListQuerySchema },
  responses: {
    ...listResponse(
      'One page of overrides, or every matching one as NDJSON.',
      RateLimitOverridePageSchema,
      RateLimitOverrideRecordSchema,
    ),
    ...adminErrorResponses(),
  },
});

const remove = createRoute({
  method: 'delete',
  path: `${PATH}/{rate_limit_override_id}`,
  operationId: 'removeRateLimitOverride',
  ...adminOperation('write', emptyJsonBodyAsObject),
  summary: 'Remove a rate-limit override',
  description: prose`The override stops applying (the limit's default, or a less specific override, applies again, on every
    instance within 10 s) and stays listed as \`removed\`. The body is optional: \`{"reason": "…"}\` says why.
    Recorded as \`rate_limit_override.removed\` with the operator and the reason. Idempotent: removing a
    removed override answers 200 with it as it is, recording nothing more. ${ADMIN_AUTH_SENTENCE}`,
  request: {
    params: RateLimitOverrideIdParamsSchema,
    body: { required: false, content: { 'application/json': { schema: RateLimitOverrideRemovalSchema } } },
  },
  responses: {
    200: {
      description: 'The override, removed.',
      content: { 'application/json': { schema: successEnvelope(RateLimitOverrideRecordSchema) } },
    },
    ...adminErrorResponses('rate_limit_override_not_found', 'unsupported_media_type', 'payload_too_large'),
  },
});

function toRecord({ override: o, status }: RateLimitOverrideListItem) {
  return {
    rate_limit_override_id: o.id,
    subject: o.subject,
    value: o.value,
    applies_to: o.subjectKey,
    limit_name: o.limitName,
    limit: o.quota,
    default_limit: rateLimitPolicies.find((p) => p.name === o.limitName)!.quota,
    status,
    expires_at: toIsoOffset(o.expiresAt),
    reason: o.reason,
    created_at: toIsoOffset(o.createdAt),
    created_by: o.createdBy,
    removed_at: o.removedAt ? toIsoOffset(o.removedAt) : null,
    removed_by: o.removedBy,
    removal_reason: o.removalReason,
  };
}

export function registerAdminRateLimitOverrides(app: Router, deps: RouteDeps): void {
  app.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const target = overrideTarget(body.subject, body.value);
    // The schema refused any value that names no target.
    if ('problem' in target)
      throw new ApiError('validation_failed', `The request is not valid. value: ${target.problem}.`);
    const now = deps.clock.now();
    const input = {
      target,
      limitName: body.limit_name,
      quota: body.limit,
      expiresAt: wholeSecond(new Date(body.expires_at)),
      reason: body.reason,
    };
    const { override, replaced } = await createRateLimitOverride(c.get('db'), input, now, operatorChangeContext(c));
    // In force at once here; the other instances read it within their refresh bound.
    deps.rateLimitOverrides.invalidate();
    const message = replaced.length
      ? `Override set, replacing ${replaced.map((r) => r.id).join(', ')}.`
      : 'Override set.';
    return c.json(
      { data: toRecord({ override, status: rateLimitOverrideStatus(override, now) }), meta: { message } },
      201,
    );
  });

  app.openapi(list, async (c) => {
    const query = c.req.valid('query');
    const filter = { ...query, limitName: query.limit_name, ...timeRange(query) };
    const now = deps.clock.now();
    return listAnswer(
      c,
      query,
      // Overrides decide what is refused: read on the primary, as everything that authorizes.
      (_reader, cursor, limit) => listRateLimitOverrides(deps.db, { ...filter, cursor, limit }, now),
      toRecord,
      'rate-limit overrides',
    );
  });

  app.openapi(remove, async (c) => {
    const { rate_limit_override_id: id } = c.req.valid('param');
    // Without a body (no Content-Type) the validator does not run.
    const reason = c.req.valid('json')?.reason ?? null;
    const now = deps.clock.now();
    const { override, removed } = await removeRateLimitOverride(deps.db, {
      id,
      reason,
      now,
      change: operatorChangeContext(c),
    });
    if (removed) {
      deps.rateLimitOverrides.invalidate();
    }
    return c.json(
      {
        data: toRecord({ override, status: rateLimitOverrideStatus(override, now) }),
        meta: { message: removed ? 'Override removed.' : 'Override was already removed.' },
      },
      200,
    );
  });
}
