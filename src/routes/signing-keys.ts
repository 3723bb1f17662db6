import { createRoute, z } from '@hono/zod-openapi';
import type { Clock } from '../clock.js';
import { MAX_RECEIPT_KEYS, type ReceiptKeys } from '../domain/tokens/receipt-keys.js';
import { KID_PATTERN, MAX_VERIFYING_KEYS } from '../domain/tokens/signing-keys.js';
import type { Router } from '../http/router.js';
import { errorResponses } from '../schemas/envelope.js';
import { headerRef } from '../schemas/response-headers.js';

const JwksSchema = z
  .object({
    keys: z
      .array(
        z.object({
          kty: z.literal('OKP').openapi({ example: 'OKP' }),
          crv: z.literal('Ed25519').openapi({ example: 'Ed25519' }),
          x: z
            .string()
            .max(43)
            .regex(/^[A-Za-z0-9_-]{43}$/)
            .openapi({
              description: 'The Ed25519 public key, base64url.',
              example: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
            }),
          kid: z.string().max(64).regex(KID_PATTERN).openapi({
            description: 'Key id, the `kid` header of the tokens this key verifies (only `[A-Za-z0-9._-]`).',
            example: 'key_3f9a12b45cd67e89',
          }),
          alg: z.literal('EdDSA').openapi({ example: 'EdDSA' }),
          use: z.literal('sig').openapi({ example: 'sig' }),
        }),
      )
      .max(MAX_VERIFYING_KEYS + MAX_RECEIPT_KEYS)
      .openapi({
        description: `The keys that verify tokens: the signing key first, then older ones still accepted (at most ${MAX_VERIFYING_KEYS}: a rotation that would make more is refused). Then every other key that signed an activation receipt, for \`RECEIPT_VERIFY_DAYS\` after its last receipt (at most ${MAX_RECEIPT_KEYS}): those verify receipts only, never a token.`,
      }),
  })
  .openapi('Jwks', {
    example: {
      keys: [
        {
          kty: 'OKP',
          crv: 'Ed25519',
          x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
          kid: 'key_3f9a12b45cd67e89',
          alg: 'EdDSA',
          use: 'sig',
        },
      ],
    },
  });

const jwks = createRoute({
  method: 'get',
  path: '/.well-known/jwks.json',
  operationId: 'getJwks',
  tags: ['keys'],
  security: [],
  summary: 'Public keys of the token signer',
  description:
    'The Ed25519 public keys (JWKS) that verify precheck and install tokens (EdDSA JWTs with a `kid` header): exactly the keys that may still verify one. The key that signs comes first; after a rotation the previous key stays listed until every token it signed has expired (the longest token lifetime plus a minute), then leaves the token ring. Activation receipts (`slowdns-receipt+jwt`) are verified against this set too: a key that signed a receipt stays listed for `RECEIPT_VERIFY_DAYS` (default 365) after its last receipt, also one that came from `SIGNING_KEYS`; a token signed by such a key is still refused once the key left the ring (verifiers pin `typ`). A verifier that meets an unknown `kid` should fetch the set again. Not wrapped in the v2 envelope: it is a standard JWK Set.',
  responses: {
    200: {
      description: 'The JWK Set.',
      headers: { 'Cache-Control': headerRef('Cache-Control', 'Always `public, max-age=300`.') },
      content: { 'application/json': { schema: JwksSchema } },
    },
    ...errorResponses(),
  },
});

export function registerSigningKeys(app: Router, keys: ReceiptKeys, clock: Clock): void {
  app.openapi(jwks, async (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(await keys.publicJwks(clock.now()), 200);
  });
}
