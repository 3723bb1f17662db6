import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import { issueFleetCode } from '../domain/install-codes/issue-fleet-code.js';
import type { CreateInstallCodeRequestSchema } from '../schemas/admin/fleet-codes.js';
import type { AppEnv } from './app-env.js';
import { operatorChangeContext } from './change-context.js';
import { checkedTrust } from '../domain/identity/trust-block.js';

/**
 * Issues the code an operator asked for (DESIGN §22), through the admin API or the console's create form: one
 * reading of the request (the service's TTL and no tags when left out), the operator's reason on the event.
 */
export async function issueRequestedCode(
  c: Context<AppEnv>,
  deps: Pick<AppDeps, 'db' | 'config' | 'clock'>,
  request: z.output<typeof CreateInstallCodeRequestSchema>,
) {
  const ttlSeconds = request.ttl_seconds ?? deps.config.installCodeTtlSeconds;
  const tags = request.tags ?? {};
  const trust = request.trust
    ? await checkedTrust(request.trust, { safety: deps.config.identityIssuerSafety, fixedTags: tags })
    : undefined;
  const issued = await issueFleetCode(deps.db, {
    input: {
      prefix: deps.config.installCodePrefix,
      uses: request.uses,
      ttlSeconds,
      description: request.description,
      tags,
      allowedCidrs: request.allowed_cidrs,
      hostnamePattern: request.hostname_pattern,
      requireApproval: request.require_approval,
      requireMachineProof: request.require_machine_proof,
      trust,
    },
    now: deps.clock.now(),
    context: operatorChangeContext(c, request.reason ?? null),
    hashes: c.get('keyedHashes'),
  });
  return { ...issued, ttlSeconds, tags, trust: trust?.trust };
}
