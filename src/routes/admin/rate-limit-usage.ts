import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset } from '../../clock.js';
import type { RouteDeps } from '../../deps.js';
import { readRateLimitUsage } from '../../domain/admin-lists/rate-limit-usage.js';
import { normaliseAddress, rateLimitAddressKey } from '../../domain/client-addresses.js';
import type { Router } from '../../http/router.js';
import { RateLimitUsageQuerySchema, RateLimitUsageSchema } from '../../schemas/admin/rate-limit-usage.js';
import { successEnvelope } from '../../schemas/envelope.js';
import { ADMIN_AUTH_SENTENCE, adminErrorResponses, adminOperation } from './admin-route.js';
import { prose } from '../../openapi-prose.js';

const usage = createRoute({
  method: 'get',
  path: '/api/v2/admin/rate-limit-usage',
  operationId: 'getRateLimitUsage',
  ...adminOperation('read'),
  summary: 'See where an address or machine stands in its rate limits',
  description: prose`For one client address (\`ip\`) or machine (\`machine\`), exactly one: each limit counted per IP (or per
    machine), its current bucket, the requests counted in it, and the quota that applies now, with the
    override that sets it (the most specific in place) or \`null\` for the default. Reads the overrides afresh
    (and refreshes this instance's copy); counts nothing. The buckets are stored hashed, so only a subject
    named here can be looked up. ${ADMIN_AUTH_SENTENCE}`,
  request: { query: RateLimitUsageQuerySchema },
  responses: {
    200: {
      description: "The subject's buckets in the current windows.",
      content: { 'application/json': { schema: successEnvelope(RateLimitUsageSchema) } },
    },
    ...adminErrorResponses(),
  },
});

export function registerAdminRateLimitUsage(app: Router, deps: RouteDeps): void {
  app.openapi(usage, async (c) => {
    const query = c.req.valid('query');
    const now = deps.clock.now();
    const value = query.ip !== undefined ? normaliseAddress(query.ip) : query.machine!;
    const kind = query.ip !== undefined ? ('ip' as const) : ('machine' as const);
    const countedAs = kind === 'ip' ? rateLimitAddressKey(value) : value;
    const overrides = await deps.rateLimitOverrides.refresh(now);
    const limits = (
      await readRateLimitUsage(deps.db, { kind, subject: countedAs, overrides, hashes: deps.keyedHashes, now })
    ).map(({ policy, bucketStart, resetsAt, used, applied }) => ({
      limit_name: policy.name,
      window_seconds: policy.windowSeconds,
      bucket_start: toIsoOffset(bucketStart),
      resets_at: toIsoOffset(resetsAt),
      used,
      limit: applied.quota,
      default_limit: policy.quota,
      remaining: Math.max(0, applied.quota - used),
      override: applied.override
        ? {
            rate_limit_override_id: applied.override.id,
            subject: applied.override.subject,
            value: applied.override.value,
            reason: applied.override.reason,
            expires_at: toIsoOffset(applied.override.expiresAt),
            created_by: applied.override.createdBy,
          }
        : null,
    }));
    return c.json(
      {
        data: { subject: kind, value, counted_as: countedAs, limits },
        meta: { message: `${limits.length} limits of this ${kind === 'ip' ? 'address' : 'machine'}.` },
      },
      200,
    );
  });
}
