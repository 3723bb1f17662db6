import { KeyObject, sign as signEd25519 } from 'node:crypto';
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { ApiError } from '../errors.js';
import { randomId, sha256Hex } from './secret-hash.js';
import { TOKEN_ALGORITHM, type KeyRing } from './signing-keys.js';

const ISSUER = 'slowdns-activation';

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
}

export interface InstallClaims {
  activationId: string;
  jti: string;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** Each CryptoKey of the ring as the KeyObject node:crypto signs with, made once per key. */
const signingKeyObjects = new WeakMap<object, KeyObject>();

const base64urlJson = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A compact JWS (RFC 7515) over the claims, with Ed25519 (RFC 8037, `alg: EdDSA`). Signed with
 * node:crypto at once rather than through WebCrypto as jose does, which hands every signature to the
 * thread pool and back: about half the CPU per token, and no wait. jose still verifies
 * (`verify` below), so any token this makes is checked by the library that reads it.
 */
async function sign(ring: KeyRing, kind: Kind, claims: JWTPayload, subject: string, now: Date, expiresAt: Date, jti: string): Promise<string> {
  const { kid, key } = ring.signing;
  let keyObject = signingKeyObjects.get(key);
  if (!keyObject) signingKeyObjects.set(key, (keyObject = KeyObject.from(key)));
  const header = base64urlJson({ alg: TOKEN_ALGORITHM, typ: kinds[kind].typ, kid });
  const payload = base64urlJson({ ...claims, iss: ISSUER, aud: kinds[kind].audience, sub: subject, jti, iat: seconds(now), exp: seconds(expiresAt) });
  const signingInput = `${header}.${payload}`;
  return `${signingInput}.${signEd25519(null, Buffer.from(signingInput), keyObject).toString('base64url')}`;
}

/** How long past its expiry an install token still reads its own install back (the status route). */
export const EXPIRED_READABLE_SECONDS = 30 * 24 * 3600;

/** `expired: 'accept'` still pins the key, algorithm, kind, issuer and audience, but lets a token up to EXPIRED_READABLE_SECONDS past its `exp` through. */
async function verify(ring: KeyRing, kind: Kind, token: string, now: Date, expired: 'refuse' | 'accept' = 'refuse'): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(
      token,
      async (header) => {
        const key = header.kid ? await ring.verifierFor(header.kid, now) : undefined;
        if (!key) throw new errors.JWKSNoMatchingKey();
        return key;
      },
      {
        algorithms: [TOKEN_ALGORITHM],
        typ: kinds[kind].typ,
        audience: kinds[kind].audience,
        issuer: ISSUER,
        currentDate: now,
        requiredClaims: ['exp', 'sub', 'jti'],
        clockTolerance: expired === 'accept' ? EXPIRED_READABLE_SECONDS : 0,
      },
    );
    return payload;
  } catch (err) {
    if (err instanceof errors.JOSEError) throw new ApiError(kinds[kind].invalid);
    throw err;
  }
}


export function signPrecheckToken(ring: KeyRing, claims: PrecheckClaims, now: Date, expiresAt: Date): Promise<string> {
  return sign(ring, 'precheck', { mid: claims.machineId, ssh: claims.sshFingerprint }, claims.codeHash, now, expiresAt, randomId('pre_', 12));
}

/** The claims, and the token's own jti: what tells one precheck from another. */
export async function verifyPrecheckToken(ring: KeyRing, token: string, now: Date): Promise<PrecheckClaims & { jti: string }> {
  const p = await verify(ring, 'precheck', token, now);
  if (typeof p.mid !== 'string' || typeof p.ssh !== 'string') throw new ApiError('precheck_token_invalid');
  return { codeHash: p.sub!, machineId: p.mid, sshFingerprint: p.ssh, jti: p.jti! };
}

export function signInstallToken(ring: KeyRing, claims: InstallClaims, now: Date, expiresAt: Date): Promise<string> {
  return sign(ring, 'install', {}, claims.activationId, now, expiresAt, claims.jti);
}

async function verifyInstallToken(ring: KeyRing, token: string, now: Date, expired: 'refuse' | 'accept' = 'refuse'): Promise<InstallClaims> {
  const p = await verify(ring, 'install', token, now, expired);
  return { activationId: p.sub!, jti: p.jti! };
}

const foreignInstallToken = () => new ApiError('install_token_invalid', 'This install token belongs to another activation.');

/**
 * Verifies an install token and that it was made for `activationId`; answers its jti. The caller
 * still compares that jti with the activation's row (`assertInstallTokenJti`), under its lock.
 * Only reading an install back (the status route) passes `expired: 'accept'`: a rerun most needs to
 * learn where it stands when the token has run out.
 */
export async function verifyInstallTokenFor(ring: KeyRing, token: string, activationId: string, now: Date, expired: 'refuse' | 'accept' = 'refuse'): Promise<string> {
  const claims = await verifyInstallToken(ring, token, now, expired);
  if (claims.activationId !== activationId) throw foreignInstallToken();
  return claims.jti;
}

/** Only the token activate issued for this activation passes: its jti hashes to the one the row keeps. */
export function assertInstallTokenJti(activation: { installTokenJtiHash: string }, jti: string): void {
  if (activation.installTokenJtiHash !== sha256Hex(jti)) throw foreignInstallToken();
}
