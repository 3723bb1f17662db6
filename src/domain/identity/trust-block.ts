import { importJWK, type JWK } from 'jose';
import type { StoredTrust } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { checkWebhookUrl, WebhookUrlRefused, type WebhookSafety } from '../webhooks/url-safety.js';

/** DESIGN §25: the bounds of a `trust` block. */
export const TRUST_MAX_AUDIENCES = 8;
export const TRUST_MAX_CLAIM_RULES = 16;
export const TRUST_MAX_KEYS = 16;
export const MIN_LIFETIME_SECONDS = 60;
export const DEFAULT_MAX_LIFETIME_SECONDS = 3600;
export const MAX_LIFETIME_SECONDS = 86_400;
/** A code that trusts an identity has no secret to leak: it may live a year. */
export const TRUST_CODE_MAX_TTL_SECONDS = 365 * 86_400;

/** The signing algorithms a token may use: never `none`, never an HMAC (whose key would be the issuer's public one). */
export const IDENTITY_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const;

/** Claims whose values an owner can rename (a repository, a group path): a rule on one alone can be taken over. */
const RENAMABLE = new Set(['repository', 'repository_owner', 'namespace_path', 'project_path', 'workflow']);
/** What the guide pins instead: ids that never move to someone else. */
const PINNED_IDS = new Set(['repository_owner_id', 'repository_id', 'namespace_id', 'project_id']);

/** A warning when the rules pin only names their owner can rename (GitHub's `repo:owner/name` subject among them). */
function renamableWarning(trust: Pick<StoredTrust, 'subject_pattern' | 'claims'>): string[] {
  const keys = Object.keys(trust.claims ?? {});
  if (keys.some((key) => PINNED_IDS.has(key))) return [];
  const renamable = keys.filter((key) => RENAMABLE.has(key));
  const subjectNamesRepo = /^(repo|project_path):/.test(trust.subject_pattern ?? '');
  if (renamable.length === 0 && !subjectNamesRepo) return [];
  const named = [...(subjectNamesRepo ? ['subject_pattern'] : []), ...renamable.map((key) => `claims.${key}`)];
  return [
    `trust pins only names that can be renamed (${named.join(', ')}): whoever takes over a freed name enrolls machines. Pin an id too, such as repository_owner_id or namespace_id.`,
  ];
}

const invalid = (field: string, problem: string) => new ApiError('validation_failed', `trust.${field}: ${problem}`);

/**
 * The block as kept, after what the schema cannot check: the issuer URL under the same address checks as a
 * webhook (an issuer pointing inward is refused here, at creation), the inline keys importable, and no tag both
 * fixed and taken from a claim. Answers its warnings beside it.
 */
export async function checkedTrust(
  trust: StoredTrust,
  { safety, fixedTags }: { safety: WebhookSafety; fixedTags: Record<string, string> },
): Promise<{ trust: StoredTrust; warnings: string[] }> {
  try {
    const issuer = checkWebhookUrl(trust.issuer, safety);
    if (issuer.search || issuer.hash) throw new WebhookUrlRefused('the issuer has no query or fragment');
  } catch (err) {
    if (err instanceof WebhookUrlRefused) throw invalid('issuer', err.message);
    throw err;
  }
  for (const [i, key] of (trust.jwks?.keys ?? []).entries()) {
    try {
      await importJWK({ ...(key as JWK), ext: true }, (key.alg as string | undefined) ?? algorithmFor(key as JWK));
    } catch {
      throw invalid(`jwks.keys.${i}`, 'is not a usable public key (RSA, EC P-256 or Ed25519)');
    }
  }
  for (const tag of Object.keys(trust.tags_from_claims ?? {}))
    if (Object.hasOwn(fixedTags, tag)) throw invalid(`tags_from_claims.${tag}`, 'is a tag the code fixes in tags');
  return { trust, warnings: renamableWarning(trust) };
}

/** The one algorithm a key of this type signs with here. */
export function algorithmFor(key: Pick<JWK, 'kty' | 'crv'>): (typeof IDENTITY_ALGORITHMS)[number] {
  if (key.kty === 'RSA') return 'RS256';
  if (key.kty === 'EC') return 'ES256';
  return 'EdDSA';
}
