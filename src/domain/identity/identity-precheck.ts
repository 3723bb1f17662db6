import { createHash } from 'node:crypto';
import type { Database } from '../../db/database.js';
import { namedStatement } from '../../db/named-statement.js';
import type { StoredTrust } from '../../db/schema.js';
import { runStatement } from '../../db/statement.js';
import { ApiError } from '../../errors.js';
import { recordEvent, type ChangeContext } from '../events/event-trail.js';
import { precheckInstallCode, type PrecheckedInstallCode, type PrecheckSighting } from '../install-codes/precheck.js';
import type { CountedOutcome, RateLimitCheck } from '../rate-limits/limiter.js';
import { fleetCodePolicies } from '../rate-limits/policies.js';
import type { KeyedHashes } from '../tokens/keyed-hashes.js';
import { inspectIdentityToken, type IdentityOutcome, type VerifiedIdentity } from './identity-token.js';
import type { IdentityIssuers } from './issuer-keys.js';

/** A trust code as an identity step reads it by its id. */
export interface TrustCode {
  id: string;
  codeHash: string;
  trust: StoredTrust;
}

const BY_ID = namedStatement<{ id: string }>('select id, code_hash, trust from install_codes where id = :id');

/**
 * The code an identity step names: 404 `install_code_not_found` for none, 403 `identity_not_allowed` for a code that
 * trusts no identity (it has a secret: its code form is the way in).
 */
export async function readTrustCode(db: Database, id: string): Promise<TrustCode> {
  const [row] = await runStatement<{ id: string; code_hash: string; trust: StoredTrust | null }, { id: string }>(
    db,
    BY_ID,
    { id },
  );
  if (!row) throw new ApiError('install_code_not_found', 'No install code has this id.');
  if (!row.trust)
    throw new ApiError(
      'identity_not_allowed',
      'This install code trusts no identity token: send its install_code instead.',
    );
  return { id: row.id, codeHash: row.code_hash, trust: row.trust };
}

/** The code's own buckets in place of the per-address limits (DESIGN §25: pods behind one node address); per machine stays. */
export function identityLimits(
  checks: RateLimitCheck[],
  code: { id: string },
  route: keyof typeof fleetCodePolicies,
  hashes: KeyedHashes,
): RateLimitCheck[] {
  const policy = fleetCodePolicies[route];
  return [
    ...checks.filter((check) => check.policy.subject !== 'ip'),
    { policy, subject: code.id, subjectHash: hashes.rateLimitSubject(policy.name, code.id), quota: policy.quota },
  ];
}

/** `install_code.identity_refused`: which check or rule failed, and whom a verified token named; never the token. */
async function recordRefusal(
  db: Database,
  {
    code,
    outcome,
    context,
    now,
  }: { code: TrustCode; outcome: Extract<IdentityOutcome, { refusal: ApiError }>; context: ChangeContext; now: Date },
): Promise<void> {
  await recordEvent(db, context, now, {
    type: 'install_code.identity_refused',
    installCodeId: code.id,
    data: {
      check: outcome.failed,
      code: outcome.refusal.code,
      ...(outcome.identity ? { identity: { iss: outcome.identity.iss, sub: outcome.identity.sub } } : {}),
    },
  });
}

/** The precheck token's jti for an identity token: one identity token, one precheck, at most one activation. */
export const identityPrecheckJti = (identity: VerifiedIdentity, code: { id: string }) =>
  `pre_${createHash('sha256').update(`${code.id}\n${identity.replayKeyHash}`).digest('hex').slice(0, 24)}`;

/**
 * An identity precheck (DESIGN §25): the token verified against the code's trust (a refusal is recorded, and
 * thrown), then the precheck of the code as the code form makes it, counted in the code's buckets, writing the
 * token's replay row in its statement: the same token again from the same machine answers again, from another
 * machine 401 `identity_token_replayed`.
 */
export async function precheckWithIdentity(
  db: Database,
  {
    code,
    token,
    sighting,
    precheckId,
    now,
    limits,
    hashes,
    issuers,
    context,
  }: {
    code: TrustCode;
    token: string;
    sighting: PrecheckSighting;
    precheckId: string;
    now: Date;
    /** The precheck's limits as the code form counts them: the per-address ones give way to the code's bucket. */
    limits: RateLimitCheck[];
    hashes: KeyedHashes;
    issuers: IdentityIssuers;
    context: ChangeContext;
  },
): Promise<CountedOutcome<PrecheckedInstallCode & { identity: VerifiedIdentity }>> {
  const outcome = await inspectIdentityToken(code.trust, token, { issuers, now });
  if ('refusal' in outcome) {
    // An issuer that does not answer says nothing of the token: no event for each retry.
    if (outcome.refusal.code !== 'identity_issuer_unavailable')
      await recordRefusal(db, { code, outcome, context, now });
    throw outcome.refusal;
  }
  const identity = outcome.verified;
  const counted = await precheckInstallCode(db, {
    input: {
      code: {
        identityCodeHash: code.codeHash,
        replay: { keyHash: identity.replayKeyHash, keepUntil: new Date(identity.expiresAt.getTime() + 60_000) },
      },
      sighting,
      precheckId,
    },
    now,
    limits: identityLimits(limits, code, 'precheck', hashes),
    hashes,
    context,
  });
  if (counted.refusal?.code === 'identity_token_replayed')
    await recordEvent(db, context, now, {
      type: 'install_code.identity_refused',
      installCodeId: code.id,
      data: { check: 'replay', code: 'identity_token_replayed', identity: { iss: identity.iss, sub: identity.sub } },
    });
  return counted.value ? { ...counted, value: { ...counted.value, identity } } : (counted as CountedOutcome<never>);
}
