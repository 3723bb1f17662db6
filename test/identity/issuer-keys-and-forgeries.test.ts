import { eq } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activations } from '../../src/db/schema.js';
import { IdentityIssuers } from '../../src/domain/identity/issuer-keys.js';
import { ADMIN_TOKEN } from '../fleet-codes/fleet-requests.js';
import { expectError, randomMachine } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import {
  loopbackCertificate,
  startJoseIssuer,
  startProviderIssuer,
  WORKLOAD_AUDIENCE,
  type JoseIssuer,
  type ProviderIssuer,
} from '../support/workload-issuers.js';
import { identityEnroll, identityPrecheck, trustCode } from './identity-requests.js';

const SUB = 'system:serviceaccount:dns:agent';
const SWITCHES = { http: 'IDENTITY_ISSUER_ALLOW_HTTP', private: 'IDENTITY_ISSUER_ALLOW_PRIVATE' };
const tls = loopbackCertificate();

describe('issuer keys, rotation and the tokens a real provider will not mint (DESIGN §25)', () => {
  let jose: JoseIssuer;
  let provider: ProviderIssuer;
  let overHttps: ProviderIssuer;
  beforeAll(async () => {
    jose = await startJoseIssuer();
    provider = await startProviderIssuer();
    overHttps = await startProviderIssuer(tls);
  });
  afterAll(async () => {
    await jose.close();
    await provider.close();
    await overHttps.close();
  });
  // http issuers allowed for the labs' loopback issuers; the https one is trusted through its own certificate.
  const t = useTestApp(
    { ADMIN_TOKEN, IDENTITY_ISSUER_ALLOW_HTTP: 'true', IDENTITY_ISSUER_ALLOW_PRIVATE: 'true' },
    () => ({
      identityIssuers: new IdentityIssuers({
        safety: { allowHttp: true, allowPrivate: true, switches: SWITCHES },
        ca: tls.cert,
      }),
    }),
  );
  beforeEach(() => t.clock.set(new Date()));

  const kubeCode = () => trustCode(t, jose.issuer, { trust: { subject_pattern: SUB } });
  const refused = async (token: string, status = 401, code = 'identity_token_invalid') =>
    expectError(await identityPrecheck(t, (await kubeCode()).install_code_id, token, randomMachine()), status, code);
  const now = () => Math.floor(Date.now() / 1000);

  it('a token signed by the published key enrolls', async () => {
    const res = await identityEnroll(t, (await kubeCode()).install_code_id, await jose.sign());
    expect(res.status).toBe(200);
  });

  it('a token from another issuer is 401', async () => refused(await jose.sign({ iss: 'https://issuer.example.org' })));

  it('an expired token is 401', async () => refused(await jose.sign({ iat: now() - 900, exp: now() - 120 })));

  it('a token whose nbf is in the future is 401', async () => refused(await jose.sign({ nbf: now() + 600 })));

  it('a token living longer than max_lifetime_seconds is 401', async () =>
    refused(await jose.sign({ iat: now(), exp: now() + 7200 })));

  it('a token without iat is 401', async () => refused(await jose.sign({ iat: undefined })));

  it('an unsigned token with alg none is 401', async () => {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const payload = { iss: jose.issuer, aud: WORKLOAD_AUDIENCE, sub: SUB, iat: now(), exp: now() + 600 };
    await refused(`${part({ alg: 'none', kid: 'published' })}.${part(payload)}.`);
  });

  it("an HS256 token keyed with the issuer's public key (algorithm confusion) is 401", async () => {
    const forged = await new SignJWT({ aud: WORKLOAD_AUDIENCE, sub: SUB, iss: jose.issuer })
      .setProtectedHeader({ alg: 'HS256', kid: 'published' })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(jose.publicPem));
    await refused(forged);
  });

  it('a token signed by a key the issuer does not publish is 401', async () => {
    const { generateKeyPair } = await import('jose');
    const stranger = await generateKeyPair('RS256');
    await refused(await jose.sign({}, { kid: 'published' }, stranger.privateKey));
  });

  it('100 tokens naming unknown kids cost the issuer at most one key-set request a minute', async () => {
    const code = await kubeCode();
    expect((await identityPrecheck(t, code.install_code_id, await jose.sign(), randomMachine())).status).toBe(200);
    t.clock.advance(61);
    const before = jose.jwksRequests();
    for (let i = 0; i < 100; i += 1) {
      const res = await identityPrecheck(
        t,
        code.install_code_id,
        await jose.sign({}, { kid: `made-up-${i}` }),
        randomMachine(),
      );
      expect(res.status).toBe(401);
    }
    expect(jose.jwksRequests() - before).toBe(1);
  });

  it('after the issuer rotates its key a token of the new key is accepted after one refetch', async () => {
    const code = await trustCode(t, provider.issuer, {
      trust: { subject_pattern: 'repo:example-org/dns:ref:refs/heads/main' },
    });
    const sub = 'repo:example-org/dns:ref:refs/heads/main';
    expect((await identityEnroll(t, code.install_code_id, await provider.mint(sub))).status).toBe(200);
    const before = provider.jwksRequests();
    await provider.rotate();
    t.clock.advance(61);
    expect((await identityEnroll(t, code.install_code_id, await provider.mint(sub))).status).toBe(200);
    expect((await identityEnroll(t, code.install_code_id, await provider.mint(sub))).status).toBe(200);
    expect(provider.jwksRequests() - before).toBe(1);
  });

  it('a provider served over https enrolls a machine', async () => {
    const sub = 'repo:example-org/dns:ref:refs/heads/main';
    const code = await trustCode(t, overHttps.issuer, { trust: { subject_pattern: sub } });
    const res = await identityEnroll(t, code.install_code_id, await overHttps.mint(sub));
    expect(res.status).toBe(200);
    expect(
      await t.database.db.select().from(activations).where(eq(activations.hostname, 'runner1.example.net')),
    ).toHaveLength(1);
  });

  it('an issuer that does not answer, with no key kept, is 503 identity_issuer_unavailable with Retry-After', async () => {
    const silent = await startJoseIssuer();
    silent.down(true);
    try {
      const code = await trustCode(t, silent.issuer, { trust: { subject_pattern: SUB } });
      const res = await identityPrecheck(t, code.install_code_id, await silent.sign(), randomMachine());
      expect(res.status).toBe(503);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await res.json()).error.code).toBe('identity_issuer_unavailable');
    } finally {
      await silent.close();
    }
  });

  it('keys fetched before are used while the issuer is down', async () => {
    const flaky = await startJoseIssuer();
    try {
      const code = await trustCode(t, flaky.issuer, { trust: { subject_pattern: SUB } });
      expect((await identityPrecheck(t, code.install_code_id, await flaky.sign(), randomMachine())).status).toBe(200);
      flaky.down(true);
      t.clock.advance(2 * 3600);
      // Signed at the service's time, two hours on.
      const at = Math.floor(t.clock.now().getTime() / 1000);
      const token = await flaky.sign({ iat: at, exp: at + 600 });
      expect((await identityPrecheck(t, code.install_code_id, token, randomMachine())).status).toBe(200);
    } finally {
      await flaky.close();
    }
  });

  it('an inline key set verifies with nothing fetched', async () => {
    const code = await trustCode(t, 'https://kubernetes.default.svc.cluster.local', {
      trust: { subject_pattern: SUB, jwks: { keys: [jose.publicJwk] } },
    });
    const before = jose.jwksRequests();
    const token = await jose.sign({ iss: 'https://kubernetes.default.svc.cluster.local' });
    expect((await identityEnroll(t, code.install_code_id, token)).status).toBe(200);
    expect(jose.jwksRequests()).toBe(before);
  });
});
