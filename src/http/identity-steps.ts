import type { Context } from 'hono';
import type { RouteDeps } from '../deps.js';
import { precheckWithIdentity, readTrustCode } from '../domain/identity/identity-precheck.js';
import type { PrecheckSighting } from '../domain/install-codes/precheck.js';
import { consumeRateLimits, type RateLimitCheck } from '../domain/rate-limits/limiter.js';
import { identityAddressPolicy } from '../domain/rate-limits/policies.js';
import type { AppEnv } from './app-env.js';
import { changeContext } from './change-context.js';
import { applyRateLimitDecision } from './enforce-rate-limits.js';

/**
 * The identity form of precheck (DESIGN §25): counted per address (600 an hour) before anything else, since
 * verifying may fetch the issuer's keys; then the code named by its id, its token verified, and the precheck
 * counted in the code's own buckets.
 */
export async function identityPrecheck(
  c: Context<AppEnv>,
  deps: RouteDeps,
  {
    codeId,
    token,
    sighting,
    precheckId,
    limits,
    now,
  }: {
    codeId: string;
    token: string;
    sighting: PrecheckSighting;
    precheckId: string;
    limits: RateLimitCheck[];
    now: Date;
  },
) {
  const clientKey = c.get('clientKey');
  const address: RateLimitCheck[] = [
    {
      policy: identityAddressPolicy,
      subject: clientKey,
      subjectHash: deps.keyedHashes.rateLimitSubject(identityAddressPolicy.name, clientKey),
      quota: identityAddressPolicy.quota,
    },
  ];
  applyRateLimitDecision(c, await consumeRateLimits(deps.db, address, now));
  const code = await readTrustCode(deps.db, codeId);
  return precheckWithIdentity(deps.db, {
    code,
    token,
    sighting,
    precheckId,
    now,
    limits,
    hashes: deps.keyedHashes,
    issuers: deps.identityIssuers,
    context: changeContext(c, 'installer'),
  });
}
