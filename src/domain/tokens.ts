import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { ApiError } from '../errors.js';
import { randomId } from './secret-hash.js';
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

async function sign(ring: KeyRing, kind: Kind, claims: JWTPayload, subject: string, now: Date, expiresAt: Date, jti: string) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, typ: kinds[kind].typ, kid: ring.signing.kid })
    .setIssuer(ISSUER)
    .setAudience(kinds[kind].audience)
    .setSubject(subject)
    .setJti(jti)
    .setIssuedAt(seconds(now))
    .setExpirationTime(seconds(expiresAt))
    .sign(ring.signing.key);
}

async function verify(ring: KeyRing, kind: Kind, token: string, now: Date): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(
      token,
      async (header) => {
        const key = header.kid ? ring.verifying.get(header.kid) : undefined;
        if (!key) throw new errors.JWKSNoMatchingKey();
        return key;
      },
      { algorithms: [TOKEN_ALGORITHM], typ: kinds[kind].typ, audience: kinds[kind].audience, issuer: ISSUER, currentDate: now, requiredClaims: ['exp', 'sub', 'jti'] },
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

export async function verifyPrecheckToken(ring: KeyRing, token: string, now: Date): Promise<PrecheckClaims> {
  const p = await verify(ring, 'precheck', token, now);
  if (typeof p.mid !== 'string' || typeof p.ssh !== 'string') throw new ApiError('precheck_token_invalid');
  return { codeHash: p.sub!, machineId: p.mid, sshFingerprint: p.ssh };
}

export function signInstallToken(ring: KeyRing, claims: InstallClaims, now: Date, expiresAt: Date): Promise<string> {
  return sign(ring, 'install', {}, claims.activationId, now, expiresAt, claims.jti);
}

async function verifyInstallToken(ring: KeyRing, token: string, now: Date): Promise<InstallClaims> {
  const p = await verify(ring, 'install', token, now);
  return { activationId: p.sub!, jti: p.jti! };
}

const foreignInstallToken = () => new ApiError('install_token_invalid', 'This install token belongs to another activation.');

/**
 * Verifies an install token and that it was made for `activationId`; answers its jti. The caller
 * still compares that jti with the activation's row (`assertInstallTokenJti`), under its lock.
 */
export async function verifyInstallTokenFor(ring: KeyRing, token: string, activationId: string, now: Date): Promise<string> {
  const claims = await verifyInstallToken(ring, token, now);
  if (claims.activationId !== activationId) throw foreignInstallToken();
  return claims.jti;
}

/** Only the token activate issued for this activation passes: its jti is the one the row keeps. */
export function assertInstallTokenJti(activation: { installTokenJti: string }, jti: string): void {
  if (activation.installTokenJti !== jti) throw foreignInstallToken();
}
