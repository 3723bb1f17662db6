import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, events, installCodes } from '../../src/db/schema.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { signInstallToken } from '../../src/domain/tokens/install-step-tokens.js';
import {
  activatedInstall,
  confirmRequest,
  expectRefusal,
  lifecycleRows,
  precheckRequest,
  releaseRequest,
} from '../support/install-flow.js';
import { buildTestApp, postJson, type TestApp, useTestApp } from '../support/test-app.js';

describe('confirm and release', () => {
  const t = useTestApp();

  const states = async (app: TestApp, code: string, activationId: string) => {
    const [codeRow] = await app.database.db
      .select()
      .from(installCodes)
      .where(eq(installCodes.codeHash, sha256Hex(code)));
    const [activation] = await app.database.db.select().from(activations).where(eq(activations.id, activationId));
    return { code: codeRow?.status, activation: activation?.status };
  };

  it("a confirm repeated by the token's holder after it succeeded answers 200 with the same receipt and writes nothing", async () => {
    const a = await activatedInstall(t);
    const first = await confirmRequest(t, a.activationId, a.installToken);
    expect(first.status).toBe(200);
    const { data } = await first.json();
    const before = { ...(await lifecycleRows(t)), events: await t.database.db.select().from(events) };
    // Later, past the token's own expiry: install/status would still read it back, so confirm does too.
    t.clock.advance(2 * 3600);
    const repeat = await confirmRequest(t, a.activationId, a.installToken);
    expect(repeat.status).toBe(200);
    expect((await repeat.json()).data).toEqual(data);
    expect({ ...(await lifecycleRows(t)), events: await t.database.db.select().from(events) }).toEqual(before);
    expect(await states(t, a.code, a.activationId)).toEqual({ code: 'consumed', activation: 'confirmed' });
  });

  it("a confirm repeated with another activation's token is still refused", async () => {
    const a = await activatedInstall(t);
    const b = await activatedInstall(t);
    expect((await confirmRequest(t, a.activationId, a.installToken)).status).toBe(200);
    await expectRefusal(t, () => confirmRequest(t, a.activationId, b.installToken), 401, 'install_token_invalid');
  });

  it('a first confirm with an expired install token is still 401 install_token_invalid', async () => {
    const a = await activatedInstall(t);
    t.clock.advance(2 * 3600);
    await expectRefusal(t, () => confirmRequest(t, a.activationId, a.installToken), 401, 'install_token_invalid');
  });

  it('confirm after release is 409 activation_released', async () => {
    const a = await activatedInstall(t);
    expect((await releaseRequest(t, a.activationId, { address: a.address })).status).toBe(200);
    await expectRefusal(t, () => confirmRequest(t, a.activationId, a.installToken), 409, 'activation_released');
    expect(await states(t, a.code, a.activationId)).toEqual({ code: 'issued', activation: 'released' });
  });

  it('confirm of an unknown activation with a validly signed token is 404 activation_not_found', async () => {
    const token = await signInstallToken(
      t.keys,
      { activationId: 'act_0000000000000000', jti: 'x' },
      t.clock.now(),
      new Date(t.clock.now().getTime() + 60_000),
    );
    await expectRefusal(t, () => confirmRequest(t, 'act_0000000000000000', token), 404, 'activation_not_found');
  });

  it('confirm and release refuse a malformed activation id with 400', async () => {
    await expectRefusal(t, () => confirmRequest(t, 'act_nothex', 'a.b.c'), 400, 'validation_failed');
    await expectRefusal(
      t,
      () => t.request('/api/v2/slowdns/install/release', postJson({ activation_id: 42 })),
      400,
      'validation_failed',
    );
  });

  it('release is idempotent: the second release answers the same', async () => {
    const a = await activatedInstall(t);
    const first = await (await releaseRequest(t, a.activationId, { address: a.address })).json();
    const second = await releaseRequest(t, a.activationId, { address: a.address });
    expect(second.status).toBe(200);
    expect((await second.json()).data).toEqual(first.data);
    expect(first.data).toEqual({ activation_id: a.activationId, status: 'released', install_code_restored: true });
  });

  it('release after confirm is 409 activation_confirmed', async () => {
    const a = await activatedInstall(t);
    expect((await confirmRequest(t, a.activationId, a.installToken)).status).toBe(200);
    await expectRefusal(
      t,
      () => releaseRequest(t, a.activationId, { address: a.address }),
      409,
      'activation_confirmed',
    );
    expect(await states(t, a.code, a.activationId)).toEqual({ code: 'consumed', activation: 'confirmed' });
  });

  it('release of an unknown activation is 404 activation_not_found', async () => {
    await expectRefusal(t, () => releaseRequest(t, 'act_0123456789abcdef'), 404, 'activation_not_found');
  });

  it('does not restore a code that has expired, and then precheck says so', async () => {
    const a = await activatedInstall(t);
    t.clock.advance(900);
    const { data } = await (await releaseRequest(t, a.activationId, { address: a.address })).json();
    expect(data.install_code_restored).toBe(false);
    expect(await states(t, a.code, a.activationId)).toEqual({ code: 'activated', activation: 'released' });
    await expectRefusal(t, () => precheckRequest(t, a.code), 409, 'install_code_unavailable');
  });

  it('does not restore the code once the install token has expired', async () => {
    const shortTokens = buildTestApp(t.database, t.keys, { INSTALL_TOKEN_TTL_SECONDS: '300' }, t.clock);
    const a = await activatedInstall(shortTokens);
    t.clock.advance(300);
    const { data } = await (await releaseRequest(shortTokens, a.activationId, { address: a.address })).json();
    expect(data.install_code_restored).toBe(false);
    expect(await states(t, a.code, a.activationId)).toEqual({ code: 'activated', activation: 'released' });
  });

  it('a restored code keeps its original expiry', async () => {
    const a = await activatedInstall(t);
    t.clock.advance(600);
    expect(
      (await (await releaseRequest(t, a.activationId, { address: a.address })).json()).data.install_code_restored,
    ).toBe(true);
    const { data } = await (await precheckRequest(t, a.code)).json();
    expect(data.precheck_expires_at).toBe('2026-11-22T10:15:00+00:00');
  });
});
