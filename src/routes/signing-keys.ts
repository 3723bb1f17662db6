import { createRoute, z } from '@hono/zod-openapi';
import type { KeyRing } from '../domain/signing-keys.js';
import type { Router } from '../http/router.js';
import { errorResponses } from '../schemas/envelope.js';

const JwksSchema = z
  .object({
    keys: z.array(
      z.object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), kid: z.string(), alg: z.literal('EdDSA'), use: z.literal('sig') }),
    ),
  })
  .openapi('Jwks');

const jwks = createRoute({
  method: 'get',
  path: '/.well-known/jwks.json',
  operationId: 'getJwks',
  tags: ['keys'],
  security: [],
  summary: 'Public keys of the token signer',
  description: 'The Ed25519 public keys (JWKS) that verify precheck and install tokens (EdDSA JWTs with a `kid` header). Not wrapped in the v2 envelope: it is a standard JWK Set.',
  responses: {
    200: { description: 'The JWK Set.', content: { 'application/json': { schema: JwksSchema } } },
    ...errorResponses(),
  },
});

export function registerSigningKeys(app: Router, keys: KeyRing): void {
  app.openapi(jwks, (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(keys.publicJwks as z.infer<typeof JwksSchema>, 200);
  });
}
