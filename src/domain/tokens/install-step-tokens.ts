import { JwsInvalid, signCompactJwsParts, verifyCompactJws, type JsonObject } from './compact-jws.js';
import { ApiError } from '../../errors.js';
import { randomId, sha256Hex } from './secret-hash.js';
import type { KeyRing } from './signing-keys.js';
import { inSpan } from '../../tracing/active-tracing.js';

export const ISSUER = 'slowdns-activation';

/**
 * Each kind has its own `typ` and audience and the verifier pins both, with the algorithm and issuer,
 * so a precheck token can never pass for an install token or the reverse.
 */
const kinds = {
  precheck: { typ: 'slowdns-precheck+jwt', audience: 'slowdns:install:activate', invalid: 'precheck_token_invalid' },
  install: { typ: 'slowdns-install+jwt', audience: 'slowdns:install:confirm', invalid: 'install_token_invalid' },
} as const;

type Kind = keyof typeof kinds;

export interface PrecheckClaims {
  /** SHA-256 of the normalised install code. */
  codeHash: string;
  machineId: string;
  sshFingerprint: string;
  /** The precheck the person approves or denies (`pc_` + 16 hex): only for a code issued with approval. */
  precheckId?: string | undefined;
  /** The challenge an activate's machine proof signs (DESIGN §24): 32 random bytes, base64url. */
  challenge?: string | undefined;
  /** The precheck's hashed client key (`KeyedHashes.clientKey`): where the machine prechecked, a release's proof. */
  clientKeyHash?: string | undefined;
  /**
   * Made by an identity precheck (DESIGN §25, claim `via: "identity"`): whom the token named, and the tags taken from
   * its claims, for activate's activation and events. Only such a token activates a code named by its id.
   */
  identity?: { iss: string; sub: string; tags: Record<string, string> } | undefined;
}

export interface InstallClaims {
  activationId: string;
  jti: string;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** A kind's own claims (the precheck's machine and its approval): never one of the registered names. */
type OwnClaims = {
  mid?: string;
  ssh?: string;
  pci?: string;
  pch?: string;
  pck?: string;
  via?: 'identity';
  idn?: { iss: string; sub: string };
  tgs?: Record<string, string>;
} & {
  [registered in 'iss' | 'aud' | 'sub' | 'jti' | 'iat' | 'exp']?: never;
};

async function sign(
  ring: KeyRing,
  kind: Kind,
  claims: OwnClaims,
  subject: string,
  now: Date,
  expiresAt: Date,
  jti: string,
): Promise<string> {
  const { kid, key } = ring.signing;
  // The kind's own claims spread last (docs/development.md, "A spread goes last"): their names are none of these.
  const payload = {
    iss: ISSUER,
    aud: kinds[kind].audience,
    sub: subject,
    jti,
    iat: seconds(now),
    exp: seconds(expiresAt),
    ...claims,
  };
  const signed = await signCompactJwsParts({ typ: kinds[kind].typ, kid }, payload, key);
  // Kept frozen: a token that comes back is read from these, not decoded again.
  ring.signed.remember(signed.token, new Date(payload.exp * 1000), now, {
    header: Object.freeze(signed.header),
    payload: Object.freeze(signed.payload),
  });
  return signed.token;
}

/** How long past its expiry an install token still reads its own install back (the status route). */
export const EXPIRED_READABLE_SECONDS = 30 * 24 * 3600;

interface VerifiedClaims extends JsonObject {
  sub: string;
  jti: string;
  exp: number;
}

/** What a verifier does with an expired token: refuse it, accept it up to EXPIRED_READABLE_SECONDS past, or ignore its expiry (release's proof). */
export type ExpiredTokens = 'refuse' | 'accept' | 'ignore';

const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * The claims of a token of this kind: its signature verifies under the ring's key for its `kid`, its
 * `typ`, issuer and audience are this kind's, `sub` and `jti` are strings, `exp` has not passed
 * (`iat` and `nbf`, when present, are times and `nbf` has come). `expired: 'accept'` still pins all
 * of that but lets a token up to EXPIRED_READABLE_SECONDS past its `exp` through.
 */
async function verify(
  ring: KeyRing,
  kind: Kind,
  token: string,
  now: Date,
  expired: ExpiredTokens = 'refuse',
): Promise<VerifiedClaims> {
  const refused = () => new ApiError(kinds[kind].invalid);
  let verified: Awaited<ReturnType<typeof verifyCompactJws>>;
  try {
    const keyFor = async (header: JsonObject) =>
      typeof header.kid === 'string' ? ring.verifierFor(header.kid, now) : undefined;
    verified = await verifyCompactJws(token, keyFor, ring.signed.signedParts(token, now) ?? false);
  } catch (err) {
    if (err instanceof JwsInvalid) throw refused();
    throw err;
  }
  const { header, payload: claims } = verified;
  if (header.typ !== kinds[kind].typ) throw refused();
  const tolerance = { refuse: 0, accept: EXPIRED_READABLE_SECONDS, ignore: Number.POSITIVE_INFINITY }[expired];
  const at = seconds(now);
  const audience = claims.aud;
  const forThisKind =
    audience === kinds[kind].audience || (Array.isArray(audience) && audience.includes(kinds[kind].audience));
  if (claims.iss !== ISSUER || !forThisKind || typeof claims.sub !== 'string' || typeof claims.jti !== 'string')
    throw refused();
  if (!isTime(claims.exp) || claims.exp <= at - tolerance) throw refused();
  if (claims.iat !== undefined && !isTime(claims.iat)) throw refused();
  if (claims.nbf !== undefined && (!isTime(claims.nbf) || claims.nbf > at)) throw refused();
  return claims as VerifiedClaims;
}

/**
 * A precheck token. `jti` is given for an identity precheck (derived from the identity token's replay key): every
 * precheck token one identity token makes is then one precheck, which makes at most one activation.
 */
export function signPrecheckToken(
  ring: KeyRing,
  claims: PrecheckClaims,
  now: Date,
  expiresAt: Date,
  jti: string = randomId('pre_', 12),
): Promise<string> {
  const bound: OwnClaims = {
    mid: claims.machineId,
    ssh: claims.sshFingerprint,
    ...(claims.precheckId === undefined ? {} : { pci: claims.precheckId }),
    ...(claims.challenge === undefined ? {} : { pch: claims.challenge }),
    ...(claims.clientKeyHash === undefined ? {} : { pck: claims.clientKeyHash }),
    ...(claims.identity === undefined
      ? {}
      : {
          via: 'identity' as const,
          idn: { iss: claims.identity.iss, sub: claims.identity.sub },
          tgs: claims.identity.tags,
        }),
  };
  return inSpan('sign precheck token', {}, () => sign(ring, 'precheck', bound, claims.codeHash, now, expiresAt, jti));
}

/** The claims, and the token's own jti: what tells one precheck from another. */
export async function verifyPrecheckToken(
  ring: KeyRing,
  token: string,
  now: Date,
): Promise<PrecheckClaims & { jti: string }> {
  const p = await inSpan('verify precheck token', {}, () => verify(ring, 'precheck', token, now));
  const optionalText = (value: unknown) => value === undefined || typeof value === 'string';
  if (
    typeof p.mid !== 'string' ||
    typeof p.ssh !== 'string' ||
    !optionalText(p.pci) ||
    !optionalText(p.pch) ||
    !optionalText(p.pck) ||
    (p.via !== undefined && !identityClaims(p))
  )
    throw new ApiError('precheck_token_invalid');
  return {
    codeHash: p.sub,
    machineId: p.mid,
    sshFingerprint: p.ssh,
    jti: p.jti,
    precheckId: p.pci as string | undefined,
    challenge: p.pch as string | undefined,
    clientKeyHash: p.pck as string | undefined,
    identity: p.via === undefined ? undefined : identityClaims(p),
  };
}

/** The identity an identity precheck's token carries, or undefined when its claims are not that. */
function identityClaims(p: JsonObject): PrecheckClaims['identity'] {
  const idn = p.idn as { iss?: unknown; sub?: unknown } | undefined;
  const tags = p.tgs;
  if (p.via !== 'identity' || typeof idn?.iss !== 'string' || typeof idn.sub !== 'string') return undefined;
  if (typeof tags !== 'object' || tags === null || Array.isArray(tags)) return undefined;
  if (!Object.values(tags).every((value) => typeof value === 'string')) return undefined;
  return { iss: idn.iss, sub: idn.sub, tags: tags as Record<string, string> };
}

export function signInstallToken(ring: KeyRing, claims: InstallClaims, now: Date, expiresAt: Date): Promise<string> {
  return inSpan('sign install token', {}, () =>
    sign(ring, 'install', {}, claims.activationId, now, expiresAt, claims.jti),
  );
}

async function verifyInstallToken(
  ring: KeyRing,
  token: string,
  now: Date,
  expired: ExpiredTokens = 'refuse',
): Promise<InstallClaims> {
  const p = await inSpan('verify install token', {}, () => verify(ring, 'install', token, now, expired));
  return { activationId: p.sub, jti: p.jti };
}

const foreignInstallToken = () =>
  new ApiError('install_token_invalid', 'This install token belongs to another activation.');

/**
 * Verifies an install token and that it was made for `activationId`; answers its jti. The caller
 * still compares that jti with the activation's row (`assertInstallTokenJti`), under its lock.
 * Only reading an install back (the status route) passes `expired: 'accept'`: a rerun most needs to
 * learn where it stands when the token has run out; release, which needs only proof of who asks, ignores the expiry.
 */
export async function verifyInstallTokenFor(
  ring: KeyRing,
  {
    token,
    activationId,
    now,
    expired = 'refuse',
  }: { token: string; activationId: string; now: Date; expired?: ExpiredTokens },
): Promise<string> {
  const claims = await verifyInstallToken(ring, token, now, expired);
  if (claims.activationId !== activationId) throw foreignInstallToken();
  return claims.jti;
}

/** Only the token activate issued for this activation passes: its jti hashes to the one the row keeps. */
export function assertInstallTokenJti(activation: { installTokenJtiHash: string }, jti: string): void {
  if (activation.installTokenJtiHash !== sha256Hex(jti)) throw foreignInstallToken();
}
