/**
 * A loopback issuer that signs with `jose` the ID tokens a real provider refuses to mint (DESIGN §25, §26):
 * signed by a key not in its JWKS, naming another issuer, already expired. Discovery, JWKS and a token
 * endpoint that answers whatever ID token the test asked for, with the nonce the test hands it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

export type FakeIdToken = 'good' | 'other-key' | 'other-issuer' | 'expired';

export interface FakeOidcIssuer {
  issuer: string;
  /** The end-session endpoint its discovery names, when asked for one on another origin (another loopback port). */
  endSession?: string;
  /** The ID token the next code redeems for, bound to this nonce. */
  next(kind: FakeIdToken, nonce: string): void;
  close(): Promise<void>;
}

async function listen(): Promise<{ server: Server; origin: string }> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function close(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

export async function startFakeOidcIssuer(
  clientId: string,
  { signOutElsewhere = false }: { signOutElsewhere?: boolean } = {},
): Promise<FakeOidcIssuer> {
  const { server, origin: issuer } = await listen();
  // Sign-out on an origin of its own, as some providers have it: a page that says so.
  const signOut = signOutElsewhere ? await listen() : undefined;
  signOut?.server.on('request', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('signed out'));
  const endSession = signOut ? `${signOut.origin}/logout` : undefined;
  const published = await generateKeyPair('ES256', { extractable: true });
  const stranger = await generateKeyPair('ES256');
  const jwks = { keys: [{ ...(await exportJWK(published.publicKey)), kid: 'published', alg: 'ES256', use: 'sig' }] };
  let pending: { kind: FakeIdToken; nonce: string } = { kind: 'good', nonce: '' };

  const idToken = async ({ kind, nonce }: typeof pending): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    const key: CryptoKey = kind === 'other-key' ? stranger.privateKey : published.privateKey;
    return new SignJWT({ nonce, email: 'eve@example.com', groups: ['slowdns-admins'] })
      .setProtectedHeader({ alg: 'ES256', kid: 'published' })
      .setIssuer(kind === 'other-issuer' ? 'https://issuer.example.net' : issuer)
      .setSubject('eve')
      .setAudience(clientId)
      .setIssuedAt(kind === 'expired' ? now - 7200 : now)
      .setExpirationTime(kind === 'expired' ? now - 3600 : now + 600)
      .sign(key);
  };

  server.on('request', (req, res) => {
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (path === '/.well-known/openid-configuration')
      return json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['ES256'],
        code_challenge_methods_supported: ['S256'],
        ...(endSession ? { end_session_endpoint: endSession } : {}),
      });
    if (path === '/jwks') return json(jwks);
    if (path === '/token' && req.method === 'POST') {
      req.resume();
      req.on('end', () => {
        void idToken(pending).then((id_token) =>
          json({ access_token: 'opaque', token_type: 'Bearer', expires_in: 60, id_token }),
        );
      });
      return;
    }
    res.writeHead(404).end();
  });

  return {
    issuer,
    ...(endSession ? { endSession } : {}),
    next: (kind, nonce) => {
      pending = { kind, nonce };
    },
    close: async () => {
      await close(server);
      if (signOut) await close(signOut.server);
    },
  };
}
