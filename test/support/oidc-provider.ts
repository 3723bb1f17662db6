/**
 * A real OpenID provider on loopback for the console's sign-in (DESIGN §26): `oidc-provider` (certified),
 * with its development login and consent pages (any password), one client for the console, and four people:
 * in the root, write and read groups, and in none.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export const OIDC_CLIENT_ID = 'slowdns-console';
export const OIDC_CLIENT_SECRET = 'console-secret-for-tests-only-0123456789';

/** login → the person's claims. */
const OIDC_PEOPLE = {
  rosa: { email: 'rosa@example.com', name: 'Rosa Root', groups: ['slowdns-admins', 'staff'] },
  wim: { email: 'wim@example.com', name: 'Wim Writer', groups: ['sre'] },
  rita: { email: 'rita@example.com', name: 'Rita Reader', groups: ['support'] },
  nora: { email: 'nora@example.com', name: 'Nora Nogroup', groups: ['marketing'] },
} as const;

/** The mapping the console is started with. */
export const OIDC_ROLES = JSON.stringify({ 'slowdns-admins': 'root', sre: 'write', support: 'read' });

export interface TestOidcProvider {
  issuer: string;
  close(): Promise<void>;
}

/** Starts the provider on 127.0.0.1 for a console at `consoleOrigin`. */
export async function startOidcProvider(consoleOrigin: string): Promise<TestOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        redirect_uris: [`${consoleOrigin}/admin/sign-in/callback`],
        post_logout_redirect_uris: [`${consoleOrigin}/admin?signed_out=1`],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'test-provider' }] },
    claims: { openid: ['sub', 'groups'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    findAccount: (_ctx, id) => {
      const person = OIDC_PEOPLE[id as keyof typeof OIDC_PEOPLE];
      if (!person) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          email: person.email,
          email_verified: true,
          name: person.name,
          groups: [...person.groups],
        }),
      };
    },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
