import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { installCodes } from '../../src/db/schema.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { signInstallToken } from '../../src/domain/tokens/install-step-tokens.js';
import { activatedInstall, confirmRequest, expectRefusal, releaseRequest } from '../support/install-flow.js';
import { postJson, testKeyRing, type TestApp, useTestApp } from '../support/test-app.js';

const statusRequest = (t: TestApp, activationId: string, installToken: string) =>
  t.request('/api/v2/slowdns/install/status', postJson({ activation_id: activationId, install_token: installToken }));

async function statusOf(t: TestApp, activationId: string, installToken: string) {
  const res = await statusRequest(t, activationId, installToken);
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return (await res.json()).data;
}

describe('POST /api/v2/slowdns/install/status', () => {
  const t = useTestApp();

  it('reads an unconfirmed activation back: binding, token expiry, release would restore, no server', async () => {
    const a = await activatedInstall(t);
    const data = await statusOf(t, a.activationId, a.installToken);
    expect(data).toEqual({
      activation_id: a.activationId,
      status: 'activated',
      install_code_hint: `${a.code.slice(0, 8)}…${a.code.slice(-6)}`,
      machine_binding: {
        hostname: 'vpn1.example.net',
        public_ip: '203.0.113.7',
        machine_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        ssh_fingerprint: expect.stringMatching(/^SHA256:/),
        ssh_key_proven: false,
      },
      requested_ref: 'main',
      install_token_expires_at: '2026-11-22T11:00:00+00:00',
      install_token_expired: false,
      release_restores_code: true,
      install_code_restored: null,
      server_registered: false,
      server_id: null,
      created_at: '2026-11-22T10:00:00+00:00',
      confirmed_at: null,
      released_at: null,
      receipt: null,
    });
  });

  it('changes nothing: the activation can still be confirmed after any number of reads', async () => {
    const a = await activatedInstall(t);
    for (let i = 0; i < 3; i++) await statusOf(t, a.activationId, a.installToken);
    expect((await confirmRequest(t, a.activationId, a.installToken)).status).toBe(200);
  });

  it('a confirmed activation answers confirmed with the token confirm consumed', async () => {
    const a = await activatedInstall(t);
    t.clock.advance(60);
    expect((await confirmRequest(t, a.activationId, a.installToken)).status).toBe(200);
    const data = await statusOf(t, a.activationId, a.installToken);
    expect(data).toMatchObject({
      status: 'confirmed',
      release_restores_code: false,
      confirmed_at: '2026-11-22T10:01:00+00:00',
      install_code_restored: null,
    });
  });

  it('a released activation says whether its release restored the code', async () => {
    const a = await activatedInstall(t);
    expect((await releaseRequest(t, a.activationId, { address: a.address })).status).toBe(200);
    expect(await statusOf(t, a.activationId, a.installToken)).toMatchObject({
      status: 'released',
      install_code_restored: true,
      release_restores_code: false,
      released_at: '2026-11-22T10:00:00+00:00',
    });
  });

  it('an expired token still reads its activation for 30 days, which says release would no longer restore the code', async () => {
    const a = await activatedInstall(t);
    t.clock.advance(3600);
    expect(await statusOf(t, a.activationId, a.installToken)).toMatchObject({
      status: 'activated',
      install_token_expired: true,
      release_restores_code: false,
    });
    t.clock.advance(30 * 86400 - 1);
    expect((await statusOf(t, a.activationId, a.installToken)).install_token_expired).toBe(true);
    t.clock.advance(1);
    await expectRefusal(t, () => statusRequest(t, a.activationId, a.installToken), 401, 'install_token_invalid');
  });

  it('release_restores_code is false once the code itself has expired, and release agrees', async () => {
    const a = await activatedInstall(t);
    t.clock.advance(900);
    expect(await statusOf(t, a.activationId, a.installToken)).toMatchObject({
      install_token_expired: false,
      release_restores_code: false,
    });
    expect(
      (await (await releaseRequest(t, a.activationId, { address: a.address })).json()).data.install_code_restored,
    ).toBe(false);
  });

  it('says when a server is registered', async () => {
    const a = await activatedInstall(t);
    const reg = await t.request(
      '/register',
      postJson({ activation_id: a.activationId, install_token: a.installToken, agent_version: '2026.11.20.1' }),
    );
    expect(reg.status).toBe(201);
    const { server_id } = (await reg.json()).data;
    expect(await statusOf(t, a.activationId, a.installToken)).toMatchObject({ server_registered: true, server_id });
  });

  it("refuses another activation's token, a token of another key and a tampered one with 401 install_token_invalid", async () => {
    const a = await activatedInstall(t);
    const b = await activatedInstall(t);
    await expectRefusal(t, () => statusRequest(t, a.activationId, b.installToken), 401, 'install_token_invalid');
    const foreign = await signInstallToken(
      await testKeyRing(),
      { activationId: a.activationId, jti: 'x' },
      t.clock.now(),
      new Date(t.clock.now().getTime() + 60_000),
    );
    await expectRefusal(t, () => statusRequest(t, a.activationId, foreign), 401, 'install_token_invalid');
    await expectRefusal(
      t,
      () => statusRequest(t, a.activationId, `${a.installToken.slice(0, -4)}AAAA`),
      401,
      'install_token_invalid',
    );
  });

  it("refuses a correctly signed token whose jti is not the activation's with 401", async () => {
    const a = await activatedInstall(t);
    const forged = await signInstallToken(
      t.keys,
      { activationId: a.activationId, jti: 'not-the-jti' },
      t.clock.now(),
      new Date(t.clock.now().getTime() + 60_000),
    );
    await expectRefusal(t, () => statusRequest(t, a.activationId, forged), 401, 'install_token_invalid');
  });

  it('an unknown activation is 404 activation_not_found', async () => {
    const token = await signInstallToken(
      t.keys,
      { activationId: 'act_0000000000000000', jti: 'x' },
      t.clock.now(),
      new Date(t.clock.now().getTime() + 60_000),
    );
    await expectRefusal(t, () => statusRequest(t, 'act_0000000000000000', token), 404, 'activation_not_found');
  });

  it('a malformed body is 400 validation_failed', async () => {
    await expectRefusal(
      t,
      () => t.request('/api/v2/slowdns/install/status', postJson({ activation_id: 'act_x' })),
      400,
      'validation_failed',
    );
  });

  it('leaves the install code as it was', async () => {
    const a = await activatedInstall(t);
    await statusOf(t, a.activationId, a.installToken);
    const [code] = await t.database.db
      .select()
      .from(installCodes)
      .where(eq(installCodes.codeHash, sha256Hex(a.code)));
    expect(code!.status).toBe('activated');
  });
});
