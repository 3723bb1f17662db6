import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { events } from '../../src/db/schema.js';
import { signInstallToken } from '../../src/domain/tokens/install-step-tokens.js';
import {
  activatedInstall,
  activateRequest,
  confirmRequest,
  expectError,
  expectRefusal,
  issueCode,
  precheckRequest,
  randomMachine,
  releaseRequest,
} from '../support/install-flow.js';
import { buildTestApp, type TestApp, testKeyRing, useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, createCode, decide, enroll, fleetPrecheck } from '../fleet-codes/fleet-requests.js';

/** DESIGN §23: only the installer releases: with its install token, or from the address the install came from. */
describe('release needs the installer’s proof', () => {
  const t = useTestApp({ ADMIN_TOKEN });
  const stranger = '192.0.2.66';

  const releaseProof = async (app: TestApp, activationId: string) => {
    const rows = await app.database.db.select().from(events).where(eq(events.activationId, activationId));
    return (rows.find((e) => e.type === 'activation.released')?.data as Record<string, unknown> | undefined)
      ?.release_proof;
  };

  /** precheck from `precheckAt`, activate from `activateAt`: an activation of a new code on a new machine. */
  const installFrom = async (app: TestApp, precheckAt: string, activateAt: string) => {
    const onMachine = randomMachine();
    const code = await issueCode(app);
    const pre = await precheckRequest(app, code, onMachine, precheckAt);
    expect(pre.status).toBe(200);
    const res = await activateRequest(app, code, (await pre.json()).data.precheck_token, onMachine, activateAt);
    expect(res.status).toBe(200);
    const { data } = await res.json();
    return { activationId: data.activation_id as string, installToken: data.install_token as string };
  };

  it('a release by activation id alone from another address is 403 release_not_allowed and changes nothing', async () => {
    const a = await activatedInstall(t);
    await expectRefusal(t, () => releaseRequest(t, a.activationId, { address: stranger }), 403, 'release_not_allowed');
    expect((await confirmRequest(t, a.activationId, a.installToken)).status).toBe(200);
  });

  it('the seed’s token-less release from the activating address still works, and says so', async () => {
    const a = await activatedInstall(t);
    const res = await releaseRequest(t, a.activationId, { address: a.address });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({
      activation_id: a.activationId,
      status: 'released',
      install_code_restored: true,
    });
    expect(await releaseProof(t, a.activationId)).toBe('address');
  });

  it('an IPv6 install may release from another address of its /64, not from another /64', async () => {
    const a = await installFrom(t, '2001:db8:1:2::5', '2001:db8:1:2::5');
    await expectRefusal(
      t,
      () => releaseRequest(t, a.activationId, { address: '2001:db8:1:3::5' }),
      403,
      'release_not_allowed',
    );
    expect((await releaseRequest(t, a.activationId, { address: '2001:db8:1:2:aaaa::9' })).status).toBe(200);
  });

  it('the precheck’s address is proof too (a machine that prechecked over one link and activated over another)', async () => {
    const a = await installFrom(t, '2001:db8:7:7::1', '198.51.100.200');
    expect((await releaseRequest(t, a.activationId, { address: '2001:db8:7:7::abcd' })).status).toBe(200);
  });

  it('the install token is proof from anywhere, even expired, and the event says install_token', async () => {
    const a = await activatedInstall(t);
    t.clock.advance(7200); // past the token's hour
    const res = await releaseRequest(t, a.activationId, { address: stranger, installToken: a.installToken });
    expect(res.status).toBe(200);
    expect(await releaseProof(t, a.activationId)).toBe('install_token');
  });

  it('another activation’s install token is 401 install_token_invalid, even from the activating address', async () => {
    const a = await activatedInstall(t);
    const b = await activatedInstall(t);
    await expectRefusal(
      t,
      () => releaseRequest(t, a.activationId, { address: a.address, installToken: b.installToken }),
      401,
      'install_token_invalid',
    );
  });

  it('a token signed for this activation id by a key the service does not hold is 401 install_token_invalid', async () => {
    const a = await activatedInstall(t);
    const foreign = await testKeyRing();
    const now = t.clock.now();
    const forged = await signInstallToken(
      foreign,
      { activationId: a.activationId, jti: 'forged' },
      now,
      new Date(now.getTime() + 60_000),
    );
    await expectRefusal(
      t,
      () => releaseRequest(t, a.activationId, { address: stranger, installToken: forged }),
      401,
      'install_token_invalid',
    );
  });

  it('a token signed by the service for this activation id with another jti is 401 install_token_invalid', async () => {
    const a = await activatedInstall(t);
    const now = t.clock.now();
    const other = await signInstallToken(
      t.keys,
      { activationId: a.activationId, jti: 'not-its-jti' },
      now,
      new Date(now.getTime() + 60_000),
    );
    await expectRefusal(
      t,
      () => releaseRequest(t, a.activationId, { address: stranger, installToken: other }),
      401,
      'install_token_invalid',
    );
  });

  it('the proof comes before the state: a stranger’s repeat of a release and a release of a confirmed one are 403', async () => {
    const a = await activatedInstall(t);
    expect((await releaseRequest(t, a.activationId, { address: a.address })).status).toBe(200);
    await expectError(await releaseRequest(t, a.activationId, { address: stranger }), 403, 'release_not_allowed');
    expect((await releaseRequest(t, a.activationId, { address: a.address })).status).toBe(200);
    const c = await activatedInstall(t);
    expect((await confirmRequest(t, c.activationId, c.installToken)).status).toBe(200);
    await expectError(await releaseRequest(t, c.activationId, { address: stranger }), 403, 'release_not_allowed');
    await expectError(await releaseRequest(t, c.activationId, { address: c.address }), 409, 'activation_confirmed');
  });

  it('RELEASE_REQUIRES_TOKEN=true refuses a token-less release even from the activating address', async () => {
    const strict = buildTestApp(t.database, t.keys, { RELEASE_REQUIRES_TOKEN: 'true' }, t.clock);
    const a = await activatedInstall(strict);
    await expectRefusal(
      strict,
      () => releaseRequest(strict, a.activationId, { address: a.address }),
      403,
      'release_not_allowed',
    );
    expect((await releaseRequest(strict, a.activationId, { installToken: a.installToken })).status).toBe(200);
  });

  it('a stranger holding a fleet code who prechecks with the victim’s machine id cannot release its activation without a token', async () => {
    const { install_code: code } = await createCode(t, { uses: 5, ttl_seconds: 3600 });
    const victim = await enroll(t, code, { address: '198.51.100.10' });
    expect(victim.status).toBe(200);
    expect((await fleetPrecheck(t, code, victim.machine, stranger)).status).toBe(200);
    await expectRefusal(
      t,
      () => releaseRequest(t, victim.activationId!, { address: stranger }),
      403,
      'release_not_allowed',
    );
    expect((await confirmRequest(t, victim.activationId!, victim.installToken!)).status).toBe(200);
  });

  it('on a fleet code issued with approval, a stranger’s precheck naming the victim’s machine proves nothing either', async () => {
    const { install_code: code, install_code_id: id } = await createCode(t, {
      uses: 5,
      ttl_seconds: 3600,
      require_approval: true,
    });
    const victim = randomMachine();
    const pre = await fleetPrecheck(t, code, victim, '198.51.100.11');
    const { precheck_token: token, precheck_id: precheckId } = (await pre.json()).data;
    expect((await decide(t, id, precheckId, 'approve')).status).toBe(200);
    const res = await activateRequest(t, code, token, victim, '198.51.100.11');
    expect(res.status).toBe(200);
    const { activation_id: activationId } = (await res.json()).data;
    const strangers = await fleetPrecheck(t, code, victim, stranger);
    expect((await decide(t, id, (await strangers.json()).data.precheck_id, 'approve')).status).toBe(200);
    await expectRefusal(t, () => releaseRequest(t, activationId, { address: stranger }), 403, 'release_not_allowed');
  });

  it('a precheck made after the activation proves nothing, even by the machine itself from a new address', async () => {
    const { install_code: code } = await createCode(t, { uses: 5, ttl_seconds: 3600 });
    const e = await enroll(t, code, { address: '198.51.100.12' });
    expect((await fleetPrecheck(t, code, e.machine, '198.51.100.13')).status).toBe(200);
    await expectRefusal(
      t,
      () => releaseRequest(t, e.activationId!, { address: '198.51.100.13' }),
      403,
      'release_not_allowed',
    );
  });

  it('on a fleet code, the address of the precheck whose token made the activation is proof', async () => {
    const { install_code: code } = await createCode(t, { uses: 5, ttl_seconds: 3600 });
    const onMachine = randomMachine();
    const pre = await fleetPrecheck(t, code, onMachine, '2001:db8:9:9::1');
    const res = await activateRequest(t, code, (await pre.json()).data.precheck_token, onMachine, '198.51.100.14');
    const { activation_id: activationId } = (await res.json()).data;
    expect((await releaseRequest(t, activationId, { address: '2001:db8:9:9::77' })).status).toBe(200);
  });
});
