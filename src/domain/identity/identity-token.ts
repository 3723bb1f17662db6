import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { StoredTrust } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { IDENTITY_ALGORITHMS } from './trust-block.js';
import { importKeySet, type IdentityIssuers, type IdentityKey } from './issuer-keys.js';
import { patternMatches } from './trust-patterns.js';

/** DESIGN §25: the skew allowed on `exp`, `nbf` and `iat`. */
const SKEW_SECONDS = 60;
/** A claim value longer than this fails its rule, unread. */
const MAX_CLAIM_VALUE = 1024;

/** One check of a token against a code's trust, as explain answers it. */
interface IdentityCheck {
  check: string;
  passed: boolean;
  /** Why it failed, in a few words; never a value of the token. */
  detail?: string;
}

/** Whom the token names: what events carry (never the token). */
interface TokenIdentity {
  iss: string;
  sub: string;
}

export interface VerifiedIdentity extends TokenIdentity {
  /** Identifies the token among the issuer's: its `jti`, else the SHA-256 of its header and payload. Hashed. */
  replayKeyHash: string;
  expiresAt: Date;
  /** `tags_from_claims`, read from the token. */
  tags: Record<string, string>;
}

export type IdentityOutcome =
  | { verified: VerifiedIdentity; checks: IdentityCheck[] }
  | { refusal: ApiError; checks: IdentityCheck[]; failed: string; identity?: TokenIdentity };

const tokenInvalid = () => new ApiError('identity_token_invalid');
const notAllowed = () => new ApiError('identity_not_allowed');

/** The replay key of §25, hashed with the issuer: a `jti` is unique only among one issuer's tokens. */
function replayKeyHash(token: string, payload: JWTPayload): string {
  const key =
    typeof payload.jti === 'string' && payload.jti.length > 0
      ? `jti:${payload.jti}`
      : `parts:${createHash('sha256').update(token.split('.').slice(0, 2).join('.')).digest('hex')}`;
  return createHash('sha256').update(`${payload.iss}\n${key}`).digest('hex');
}

/** Which claim a jose refusal names, as a check. */
function joseCheck(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'expiry';
  if (err instanceof errors.JWTClaimValidationFailed)
    return (
      { aud: 'audience', nbf: 'not_before', iat: 'issued_at', iss: 'issuer', sub: 'subject' }[err.claim] ?? 'claims'
    );
  return 'signature';
}

async function keyOf(
  trust: StoredTrust,
  kid: string,
  { issuers, now }: { issuers: IdentityIssuers; now: Date },
): Promise<IdentityKey | undefined> {
  if (trust.jwks) return (await importKeySet(trust.jwks)).get(kid);
  return issuers.keyFor(trust.issuer, kid, now);
}

/** C0, DEL or C1: never in a tag value (the console and the command print tags as they are). */
const hasControlCharacter = (value: string) =>
  [...value].some((ch) => {
    const point = ch.codePointAt(0)!;
    return point <= 0x1f || (point >= 0x7f && point <= 0x9f);
  });

/** The rules of the code, each a check: the subject, each claim rule, each tag taken from a claim. */
function ruleChecks(
  trust: StoredTrust,
  payload: JWTPayload,
): { checks: IdentityCheck[]; tags: Record<string, string> } {
  const text = (name: string) => {
    const value = payload[name];
    return typeof value === 'string' && value.length <= MAX_CLAIM_VALUE ? value : undefined;
  };
  const rule = (check: string, pattern: string, value: string | undefined): IdentityCheck =>
    value !== undefined && patternMatches(pattern, value)
      ? { check, passed: true }
      : { check, passed: false, detail: value === undefined ? 'the claim is missing or not a string' : 'no match' };
  const checks: IdentityCheck[] = [];
  if (trust.subject_pattern !== undefined) checks.push(rule('subject_pattern', trust.subject_pattern, text('sub')));
  for (const [name, pattern] of Object.entries(trust.claims ?? {}))
    checks.push(rule(`claims.${name}`, pattern, text(name)));
  const tags: Record<string, string> = {};
  for (const [tag, name] of Object.entries(trust.tags_from_claims ?? {})) {
    const value = text(name);
    const usable = value !== undefined && value.length >= 1 && value.length <= 64 && !hasControlCharacter(value);
    if (usable) tags[tag] = value;
    checks.push(
      usable
        ? { check: `tags_from_claims.${tag}`, passed: true }
        : {
            check: `tags_from_claims.${tag}`,
            passed: false,
            detail: 'the claim is not a tag value (1 to 64 characters)',
          },
    );
  }
  return { checks, tags };
}

/**
 * A workload identity token against a code's trust (DESIGN §25), every check in order, stopping at the first that
 * makes the token invalid: its form, the algorithm (RS256, ES256 or EdDSA only), a `kid`, the issuer exactly, the
 * issuer's key for that `kid`, then the signature, audience and times (60 s of skew, `iat` and `exp` required), the
 * lifetime; all of them 401 `identity_token_invalid`, or 503 `identity_issuer_unavailable` when the issuer cannot be
 * reached and none of its keys is kept. A token that verifies meets every rule (403 `identity_not_allowed`).
 */
export async function inspectIdentityToken(
  trust: StoredTrust,
  token: string,
  deps: { issuers: IdentityIssuers; now: Date },
): Promise<IdentityOutcome> {
  const checks: IdentityCheck[] = [];
  const refuse = (check: string, detail: string, refusal: ApiError = tokenInvalid()): IdentityOutcome => {
    checks.push({ check, passed: false, detail });
    return { refusal, checks, failed: check };
  };
  const pass = (check: string) => checks.push({ check, passed: true });
  let header: ReturnType<typeof decodeProtectedHeader>;
  let claims: JWTPayload;
  try {
    header = decodeProtectedHeader(token);
    claims = decodeJwt(token);
  } catch {
    return refuse('format', 'not a signed JWT');
  }
  if (token.split('.').length !== 3) return refuse('format', 'not a signed JWT');
  pass('format');
  if (!IDENTITY_ALGORITHMS.includes(header.alg as (typeof IDENTITY_ALGORITHMS)[number]))
    return refuse('algorithm', 'only RS256, ES256 and EdDSA are accepted');
  pass('algorithm');
  if (typeof header.kid !== 'string' || header.kid.length === 0) return refuse('kid', 'the header names no kid');
  pass('kid');
  if (claims.iss !== trust.issuer) return refuse('issuer', 'another issuer');
  pass('issuer');
  let key: IdentityKey | undefined;
  try {
    key = await keyOf(trust, header.kid, deps);
  } catch (err) {
    if (err instanceof ApiError) return refuse('key', 'the issuer cannot be reached', err);
    throw err;
  }
  if (!key) return refuse('key', 'no key of the issuer has this kid');
  if (key.alg !== header.alg) return refuse('algorithm', "not the algorithm of the issuer's key");
  pass('key');
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, key.key, {
      algorithms: [key.alg],
      issuer: trust.issuer,
      audience: trust.audiences,
      clockTolerance: SKEW_SECONDS,
      currentDate: deps.now,
      requiredClaims: ['iat', 'exp', 'sub'],
    }));
  } catch (err) {
    if (!(err instanceof errors.JOSEError)) throw err;
    return refuse(joseCheck(err), 'does not verify');
  }
  pass('signature');
  const at = Math.floor(deps.now.getTime() / 1000);
  if (typeof payload.iat !== 'number' || payload.iat > at + SKEW_SECONDS)
    return refuse('issued_at', 'issued in the future');
  if (typeof payload.sub !== 'string') return refuse('subject', 'no subject');
  if (payload.exp! - payload.iat > trust.max_lifetime_seconds)
    return refuse('lifetime', `lives longer than ${trust.max_lifetime_seconds} s`);
  pass('lifetime');
  const identity = { iss: trust.issuer, sub: payload.sub };
  const rules = ruleChecks(trust, payload);
  checks.push(...rules.checks);
  const failed = rules.checks.find((check) => !check.passed);
  if (failed) return { refusal: notAllowed(), checks, failed: failed.check, identity };
  return {
    checks,
    verified: {
      ...identity,
      replayKeyHash: replayKeyHash(token, payload),
      expiresAt: new Date(payload.exp! * 1000),
      tags: rules.tags,
    },
  };
}
