import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { installCodes, servers } from '../../src/db/schema.js';
import { AGENT_VERSION, registerRequest } from '../legacy/agent-requests.js';
import { activateRequest, confirmRequest, releaseRequest } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { eventTrail } from '../support/event-trail.js';
import { ADMIN_TOKEN, createCode, enroll, fleetPrecheck, showCode } from './fleet-requests.js';

describe('fleet codes: uses taken, given back and spent (DESIGN §22)', () => {
  const t = useTestApp({ ADMIN_TOKEN, INSTALL_TOKEN_TTL_SECONDS: '600' });

  it('a code with uses 3 enrolls three machines and refuses a fourth with 409 install_code_exhausted', async () => {
    const { install_code: code, install_code_id: id } = await createCode(t, { uses: 3, ttl_seconds: 3600 });
    const enrolled = [];
    for (let i = 1; i <= 3; i++) enrolled.push(await enroll(t, code, { address: `198.51.100.${i}` }));
    expect(enrolled.map((e) => e.status)).toEqual([200, 200, 200]);
    for (const e of enrolled) expect((await confirmRequest(t, e.activationId!, e.installToken!)).status).toBe(200);
    expect(await enroll(t, code, { address: '198.51.100.9' })).toMatchObject({
      status: 409,
      code: 'install_code_exhausted',
    });
    const shown = await showCode(t, id);
    expect(shown).toMatchObject({ status: 'exhausted', uses: 3, uses_spent: 3, uses_held: 0 });
    expect(shown.activations).toHaveLength(3);
  });

  it('an unconfirmed activation holds its use: precheck and activate answer exhausted while it does', async () => {
    const { install_code: code, install_code_id: id } = await createCode(t, { uses: 2, ttl_seconds: 3600 });
    await enroll(t, code, { address: '198.51.100.1' });
    await enroll(t, code, { address: '198.51.100.2' });
    expect(await showCode(t, id)).toMatchObject({ status: 'exhausted', uses_spent: 0, uses_held: 2 });
    expect(await enroll(t, code, { address: '198.51.100.3' })).toMatchObject({ code: 'install_code_exhausted' });
  });

  it('release gives a use back', async () => {
    const { install_code: code, install_code_id: id } = await createCode(t, { uses: 2, ttl_seconds: 3600 });
    const first = await enroll(t, code, { address: '198.51.100.1' });
    await enroll(t, code, { address: '198.51.100.2' });
    expect(await enroll(t, code, { address: '198.51.100.3' })).toMatchObject({ code: 'install_code_exhausted' });
    const released = await releaseRequest(t, first.activationId!, { installToken: first.installToken });
    expect(released.status).toBe(200);
    expect((await released.json()).data.install_code_restored).toBe(true);
    expect(await showCode(t, id)).toMatchObject({ status: 'issued', uses_held: 1 });
    expect((await enroll(t, code, { address: '198.51.100.4' })).status).toBe(200);
  });

  it("an abandoned install's use comes back when its install token expires", async () => {
    const { install_code: code, install_code_id: id } = await createCode(t, { uses: 2, ttl_seconds: 7200 });
    await enroll(t, code, { address: '198.51.100.1' });
    await enroll(t, code, { address: '198.51.100.2' });
    expect(await enroll(t, code, { address: '198.51.100.3' })).toMatchObject({ code: 'install_code_exhausted' });
    t.clock.advance(601);
    expect(await showCode(t, id)).toMatchObject({ status: 'issued', uses_held: 0 });
    expect((await enroll(t, code, { address: '198.51.100.4' })).status).toBe(200);
  });

  it('events: issued with uses, tags and operator, exhausted when the last use is taken, never consumed for uses above 1', async () => {
    const trail = eventTrail(t);
    const { install_code: code } = await createCode(t, { uses: 2, tags: { env: 'prod' }, reason: 'fleet' });
    const issued = await trail.take();
    expect(issued.map((e) => [e.type, e.actor])).toEqual([['install_code.issued', 'operator']]);
    expect(issued[0]!.data).toMatchObject({ uses: 2, tags: { env: 'prod' }, operator: 'root', reason: 'fleet' });
    const a = await enroll(t, code, { address: '198.51.100.1' });
    expect(await trail.types()).toEqual(['activation.created']);
    const b = await enroll(t, code, { address: '198.51.100.2' });
    expect(await trail.types()).toEqual(['install_code.exhausted', 'activation.created']);
    await confirmRequest(t, a.activationId!, a.installToken!);
    await confirmRequest(t, b.activationId!, b.installToken!);
    expect(await trail.types()).toEqual(['activation.confirmed', 'activation.confirmed']);
  });

  it('a uses 1 fleet code follows the page code: activated, then consumed at confirm', async () => {
    const trail = eventTrail(t);
    const { install_code: code, install_code_id: id } = await createCode(t, {});
    await trail.take();
    const one = await enroll(t, code, { address: '198.51.100.1' });
    expect(await trail.types()).toEqual(['install_code.activated', 'activation.created']);
    expect(await enroll(t, code, { address: '198.51.100.2' })).toMatchObject({ code: 'install_code_unavailable' });
    await confirmRequest(t, one.activationId!, one.installToken!);
    expect(await trail.types()).toEqual(['activation.confirmed', 'install_code.consumed']);
    const [row] = await t.database.db.select().from(installCodes);
    expect(row).toMatchObject({ id, status: 'consumed', uses: 1, usesSpent: 1 });
  });

  it('a precheck token makes at most one activation', async () => {
    const { install_code: code } = await createCode(t, { uses: 5, ttl_seconds: 3600 });
    const first = await enroll(t, code, { address: '198.51.100.1' });
    const pre = await fleetPrecheck(t, code, first.machine, '198.51.100.1');
    const token = (await pre.json()).data.precheck_token;
    const one = await activateRequest(
      t,
      code,
      token,
      { ...first.machine, hostname: 'a.prod.example.com' },
      '198.51.100.1',
    );
    expect(one.status).toBe(200);
    const two = await activateRequest(
      t,
      code,
      token,
      { ...first.machine, hostname: 'b.prod.example.com' },
      '198.51.100.1',
    );
    expect(two.status).toBe(401);
    expect((await two.json()).error.code).toBe('precheck_token_invalid');
  });

  it('an abandoned install whose server registered keeps its use: three rounds of expired tokens never make more active servers than uses', async () => {
    const { install_code: code, install_code_id: id } = await createCode(t, { uses: 2, ttl_seconds: 7200 });
    const activeServers = async () =>
      (await t.database.db.select().from(servers).where(eq(servers.status, 'active'))).length;
    for (let round = 1; round <= 3; round++) {
      for (let i = 1; i <= 2; i++) {
        const e = await enroll(t, code, { address: `198.51.100.${round * 10 + i}` });
        if (e.status !== 200) continue;
        const res = await registerRequest(t, {
          activation_id: e.activationId,
          install_token: e.installToken,
          agent_version: AGENT_VERSION,
        });
        expect(res.status).toBe(201);
      }
      expect(await activeServers()).toBe(2);
      t.clock.advance(601);
    }
    expect(await showCode(t, id)).toMatchObject({ status: 'exhausted', uses_spent: 0, uses_held: 2 });
    expect(await enroll(t, code, { address: '198.51.100.99' })).toMatchObject({ code: 'install_code_exhausted' });
  });
});
