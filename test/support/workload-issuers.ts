/**
 * Workload identity issuers on loopback for codeless enrollment (DESIGN §25). `startProviderIssuer`: a real OpenID
 * provider (`oidc-provider`, certified) that mints ID tokens for a client whose id is the audience, over http or
 * https, its keys rotated on demand. `startJoseIssuer`: discovery and a JWKS with an RS256 key, whose tokens the
 * test signs with `jose` however it likes: the malformed ones a real provider refuses to mint. Both count the
 * key-set requests they answer.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';

export const WORKLOAD_AUDIENCE = 'https://slowdns.example.net';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Served {
  origin: string;
  server: Server;
  setHandler(handler: Handler): void;
  /** Requests answered for the key set. */
  jwksRequests(): number;
  /** While down, every request is cut. */
  down(isDown: boolean): void;
  close(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1, made by Debian's openssl: what the service is told to trust. */
export function loopbackCertificate(): { key: string; cert: string } {
  const folder = mkdtempSync(join(tmpdir(), 'slowdns-issuer-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(folder, 'key.pem'),
        '-out',
        join(folder, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(folder, 'key.pem'), 'utf8'), cert: readFileSync(join(folder, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function serve(tls?: { key: string; cert: string }, jwksPath = '/jwks'): Promise<Served> {
  let handler: Handler = (_req, res) => res.writeHead(404).end();
  let jwks = 0;
  let isDown = false;
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (isDown) return req.socket.destroy();
    if (new URL(req.url ?? '/', 'http://x').pathname === jwksPath) jwks += 1;
    handler(req, res);
  };
  const server: Server = tls ? createHttpsServer(tls, listener) : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    server,
    setHandler: (h) => {
      handler = h;
    },
    jwksRequests: () => jwks,
    down: (value) => {
      isDown = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ProviderIssuer {
  issuer: string;
  /** An ID token for `sub` with these claims, audience WORKLOAD_AUDIENCE (or `audience`), from the provider's current key. */
  mint(sub: string, claims?: Record<string, string>, audience?: string): Promise<string>;
  /** A new signing key under a new `kid`: the provider publishes only it from now on. */
  rotate(): Promise<void>;
  jwksRequests(): number;
  down(isDown: boolean): void;
  close(): Promise<void>;
}

/** `oidc-provider` on loopback (https when given a certificate), one client per audience. */
export async function startProviderIssuer(tls?: { key: string; cert: string }): Promise<ProviderIssuer> {
  const served = await serve(tls);
  let generation = 0;
  let provider: Provider;
  const build = async () => {
    generation += 1;
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    provider = new Provider(served.origin, {
      clients: ['https://slowdns.example.net', 'https://elsewhere.example.net'].map((client_id) => ({
        client_id,
        client_secret: 'workload-issuer-secret-for-tests-only-0123456789',
        redirect_uris: ['https://example.net/callback'],
        id_token_signed_response_alg: 'RS256',
      })),
      jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: `key-${generation}` }] },
      claims: { openid: ['sub', 'repository', 'repository_owner_id', 'ref', 'environment'] },
      ttl: { IdToken: 300 },
    });
    served.setHandler(provider.callback());
  };
  await build();
  return {
    issuer: served.origin,
    mint: async (sub, claims = {}, audience = WORKLOAD_AUDIENCE) => {
      const client = await provider.Client.find(audience);
      const token = new provider.IdToken({ sub, ...claims }, { client: client! });
      token.scope = 'openid';
      token.set('jti', crypto.randomUUID());
      return token.issue({ use: 'idtoken' });
    },
    rotate: build,
    jwksRequests: served.jwksRequests,
    down: served.down,
    close: served.close,
  };
}

export interface JoseIssuer {
  issuer: string;
  publicJwk: JWK;
  /** The RSA public key as PEM: what an algorithm-confusion forgery uses as its HMAC secret. */
  publicPem: string;
  /** Signs `payload` (issuer, audience, times filled in unless given) with the published key, or `key`. */
  sign(payload?: JWTPayload, header?: { alg?: string; kid?: string }, key?: CryptoKey | Uint8Array): Promise<string>;
  jwksRequests(): number;
  down(isDown: boolean): void;
  close(): Promise<void>;
}

/** Discovery and a JWKS on loopback, tokens signed by the test with `jose`. */
export async function startJoseIssuer(): Promise<JoseIssuer> {
  const served = await serve(undefined, '/keys');
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'published', alg: 'RS256', use: 'sig' };
  const { createPublicKey } = await import('node:crypto');
  const publicPem = createPublicKey({ key: publicJwk as never, format: 'jwk' }).export({
    type: 'spki',
    format: 'pem',
  }) as string;
  served.setHandler((req, res) => {
    const path = new URL(req.url ?? '/', served.origin).pathname;
    const json = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/.well-known/openid-configuration')
      return json({
        issuer: served.origin,
        jwks_uri: `${served.origin}/keys`,
        id_token_signing_alg_values_supported: ['RS256'],
      });
    if (path === '/keys') return json({ keys: [publicJwk] });
    res.writeHead(404).end();
  });
  return {
    issuer: served.origin,
    publicJwk,
    publicPem,
    sign: (payload = {}, header = {}, key = privateKey) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: served.origin,
        aud: WORKLOAD_AUDIENCE,
        sub: 'system:serviceaccount:dns:agent',
        iat: now,
        exp: now + 600,
        jti: crypto.randomUUID(),
        ...payload,
      })
        .setProtectedHeader({ alg: header.alg ?? 'RS256', kid: header.kid ?? 'published' })
        .sign(key);
    },
    jwksRequests: served.jwksRequests,
    down: served.down,
    close: served.close,
  };
}
