/*
 * The activation receipt (DESIGN §16): a compact JWS the service signs once an install is confirmed,
 * which anyone can verify offline against /.well-known/jwks.json. It holds no secret, and the machine id
 * only as the keyed hash machine-id(5) asks for (never the id itself nor its plain hash).
 */
import type { KeyObject } from 'node:crypto';
import { type JsonObject, signCompactJws } from '../tokens/compact-jws.js';
import { hmacSha256Hex } from '../tokens/keyed-hashes.js';
import { ISSUER } from '../tokens/install-step-tokens.js';

const RECEIPT_TYP = 'slowdns-receipt+jwt';

/** The HMAC key of `machine_id_hmac`: the application's own id, as machine-id(5) recommends. */
const MACHINE_ID_HMAC_KEY = 'slowdns-receipt-v1';

/** Set up once (the key's padded blocks), made from two one-shot SHA-256 per confirm: the bytes of createHmac. */
const machineIdHmac = hmacSha256Hex(Buffer.from(MACHINE_ID_HMAC_KEY));

/** What a receipt is made from: a confirmed activation as its row keeps it. */
export interface ConfirmedInstall {
  id: string;
  installCodeId: string;
  hostname: string;
  publicIp: string;
  machineId: string;
  sshFingerprint: string;
  /** The machine proved its SSH host key at activate (DESIGN §24). */
  sshKeyProven: boolean;
  requestedRef: string;
  installerVersion: string;
  confirmedAt: Date;
  /** The tags of the fleet code it came from (DESIGN §22). */
  tags?: Record<string, string> | undefined;
}

/** The claims, rebuilt from the row alone: the same activation always makes the same claims. */
function receiptClaims(install: ConfirmedInstall): JsonObject {
  const claims: JsonObject = {
    iss: ISSUER,
    sub: install.id,
    install_code_id: install.installCodeId,
    hostname: install.hostname,
    public_ip: install.publicIp,
    machine_id_hmac: machineIdHmac(install.machineId),
    ssh_fingerprint: install.sshFingerprint,
    ssh_key_proven: install.sshKeyProven,
    requested_ref: install.requestedRef,
    installer_version: install.installerVersion,
  };
  // Only a code with tags adds the claim: a page code's receipt keeps the claims it always had. Assigned, not
  // spread before `iat` (docs/development.md, "A spread goes last"): the claims in the same order, the same bytes.
  if (install.tags && Object.keys(install.tags).length > 0) claims.tags = install.tags;
  claims.iat = Math.floor(install.confirmedAt.getTime() / 1000);
  return claims;
}

/**
 * Signed by the key signing now (Ed25519 is deterministic: the same key and row give the same bytes).
 * The caller has made sure the key is kept among the receipt keys first (ReceiptKeys.signer).
 */
export function signReceipt(signer: { kid: string; key: KeyObject }, install: ConfirmedInstall): Promise<string> {
  return signCompactJws({ typ: RECEIPT_TYP, kid: signer.kid }, receiptClaims(install), signer.key);
}
