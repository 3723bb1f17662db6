import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet } from 'jose';

export const RECEIPT_TYP = 'slowdns-receipt+jwt';
const ISSUER = 'slowdns-activation';

/** The claims of an activation receipt (DESIGN §16; the contract's `ConfirmResult.receipt`). */
export interface ReceiptClaims {
  iss: string;
  /** The activation id. */
  sub: string;
  install_code_id: string;
  hostname: string;
  public_ip: string;
  /** Lowercase hex HMAC-SHA256 of the machine id, key `slowdns-receipt-v1`. */
  machine_id_hmac: string;
  ssh_fingerprint: string;
  /**
   * The machine proved at activate that it holds the SSH host key of `ssh_fingerprint` (DESIGN §24); a receipt
   * made before machine proofs has no such claim and reads as `false`.
   */
  ssh_key_proven: boolean;
  requested_ref: string;
  installer_version: string;
  /** The confirm time, seconds since the epoch. */
  iat: number;
}

/**
 * Why a receipt was refused: `bad_signature` (a known key, a signature that does not verify: altered),
 * `unknown_key` (no key of the set has its `kid`: signed elsewhere, or the set is not this service's),
 * `malformed` (not a compact JWS, another `typ` such as an install token, or claims missing).
 */
export type ReceiptProblem = 'bad_signature' | 'unknown_key' | 'malformed';

export class ReceiptInvalidError extends Error {
  constructor(
    readonly problem: ReceiptProblem,
    message: string,
  ) {
    super(message);
    this.name = 'ReceiptInvalidError';
  }
}

const STRING_CLAIMS = [
  'iss',
  'sub',
  'install_code_id',
  'hostname',
  'public_ip',
  'machine_id_hmac',
  'ssh_fingerprint',
  'requested_ref',
  'installer_version',
] as const;

function problemOf(err: unknown): ReceiptInvalidError | undefined {
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return new ReceiptInvalidError('bad_signature', 'the signature does not verify: the receipt was altered');
  if (err instanceof errors.JWKSNoMatchingKey)
    return new ReceiptInvalidError('unknown_key', "no key of the JWKS has the receipt's kid");
  if (err instanceof errors.JWTClaimValidationFailed && err.claim === 'typ')
    return new ReceiptInvalidError('malformed', `not a receipt: its typ is not ${RECEIPT_TYP}`);
  if (err instanceof errors.JOSEError)
    return new ReceiptInvalidError('malformed', `not a well-formed receipt (${err.code})`);
  return undefined;
}

/**
 * Verifies an activation receipt offline against a JWK Set (the service's `/.well-known/jwks.json`,
 * fetched or saved): Ed25519 only, `typ` and issuer pinned. Answers its claims; throws
 * ReceiptInvalidError (with its `problem`) for any receipt that does not verify.
 */
export async function verifyReceipt(receipt: string, jwks: JSONWebKeySet): Promise<ReceiptClaims> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(receipt.trim(), createLocalJWKSet(jwks), {
      algorithms: ['EdDSA'],
      typ: RECEIPT_TYP,
      issuer: ISSUER,
    }));
  } catch (err) {
    throw problemOf(err) ?? err;
  }
  const missing = STRING_CLAIMS.filter((claim) => typeof payload[claim] !== 'string');
  if (missing.length > 0 || typeof payload.iat !== 'number') {
    throw new ReceiptInvalidError(
      'malformed',
      `not a receipt: claims missing (${[...missing, ...(typeof payload.iat === 'number' ? [] : ['iat'])].join(', ')})`,
    );
  }
  return { ...payload, ssh_key_proven: payload.ssh_key_proven === true } as unknown as ReceiptClaims;
}
