import { z } from '@hono/zod-openapi';

/** A real receipt, signed by the key of the JWKS example (RFC 8037's test key): it verifies against that example. */
export const RECEIPT_EXAMPLE =
  'eyJ0eXAiOiJzbG93ZG5zLXJlY2VpcHQrand0Iiwia2lkIjoia2V5XzNmOWExMmI0NWNkNjdlODkiLCJhbGciOiJFZERTQSJ9.eyJpc3MiOiJzbG93ZG5zLWFjdGl2YXRpb24iLCJzdWIiOiJhY3RfM2Y5YTEyYjQ1Y2Q2N2U4OSIsImluc3RhbGxfY29kZV9pZCI6ImljXzNmOWExMmI0NWNkNjdlODkiLCJob3N0bmFtZSI6InZwbjEuZXhhbXBsZS5uZXQiLCJwdWJsaWNfaXAiOiIyMDMuMC4xMTMuNyIsIm1hY2hpbmVfaWRfaG1hYyI6IjljNjZmMTIzMzhlZjVmZDE5M2JkYTcyNWRhYzQ0NGNjMmY2MmI0OTJmNWZiMDExOThkZWQ4N2M4YWRhMDg2NzQiLCJzc2hfZmluZ2VycHJpbnQiOiJTSEEyNTY6blRoYmc2a1hVcEpXR2w3RTFJR09Dc3BSb21UeGRDQVJMdmlLdzZFNVNZOCIsInJlcXVlc3RlZF9yZWYiOiJtYWluIiwiaW5zdGFsbGVyX3ZlcnNpb24iOiIyLjAuMCIsImlhdCI6MTc5NTM0MjAyMH0.1HM3kjBjZOW7hvwlvCfou18LKe-g0xFIHmRLssd7QYNL2VEU2isVTLDDfOWg0rPYKJ2S9m0NJoBDLGayegQbBQ';

const RECEIPT_DESCRIPTION = [
  'The activation receipt: proof that this install was confirmed, which anyone can check offline. A compact JWS (a JWT) signed with Ed25519:',
  'header `{"typ":"slowdns-receipt+jwt","kid":…,"alg":"EdDSA"}`; the `kid` is in `GET /.well-known/jwks.json`, which keeps every key that signed a receipt for `RECEIPT_VERIFY_DAYS` (365 by default) after its last one, also after a key rotation.',
  'Claims: `iss` (`slowdns-activation`), `sub` (the activation id), `install_code_id`, `hostname`, `public_ip`, `machine_id_hmac` (lowercase hex HMAC-SHA256 of the `machine_id`, key `slowdns-receipt-v1`: never the id itself, as machine-id(5) asks), `ssh_fingerprint`, `ssh_key_proven` (whether the machine proved that SSH host key at activate, DESIGN §24), `requested_ref`, `installer_version`, `tags` (only when the operator code it came from has tags, DESIGN §22), `iat` (the confirm time, seconds). No `exp`: a receipt does not run out. It holds no secret.',
  'Verify it with any JOSE library, pinning the algorithm and the type: e.g. jose, `jwtVerify(receipt, createLocalJWKSet(jwks), { algorithms: ["EdDSA"], typ: "slowdns-receipt+jwt", issuer: "slowdns-activation" })`; or `slowdns receipt verify FILE --jwks URL`, or the TypeScript client\'s `verifyReceipt(receipt, jwks)`.',
  'Confirm answers it, and install status answers it again for a confirmed activation (the same claims, signed by the key signing then).',
].join(' ');

export const ReceiptSchema = z
  .string()
  .max(2048)
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
  .openapi({ description: RECEIPT_DESCRIPTION, example: RECEIPT_EXAMPLE });
