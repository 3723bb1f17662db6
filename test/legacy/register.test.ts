import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, events, servers } from '../../src/db/schema.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { signInstallToken } from '../../src/domain/tokens/install-step-tokens.js';
import { activatedInstall, confirmRequest, expectError, releaseRequest } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { AGENT_VERSION, bearer, checkinRequest, registerRequest } from './agent-requests.js';

describe('POST /register', () => {
  const t = useTestApp();

  const registration = (a: { activationId: string; installToken: string }) => ({
    activation_id: a.activationId,
    install_token: a.installToken,
    agent_version: AGENT_VERSION,
  });
  const serverRows = () => t.database.db.select().from(servers);

  it('records the server of the activation, answers its id and agent token once, and leaves the install token for confirm', async () => {
    const activated = await activatedInstall(t);
    const res = await registerRequest(t, registration(activated));
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json();
    expect(body).toEqual({
      data: {
        server_id: expect.stringMatching(/^srv_[0-9a-f]{16}$/),
        agent_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        checkin_interval_seconds: 300,
      },
      meta: { message: expect.any(String) },
    });
    const [activation] = await t.database.db
      .select()
      .from(activations)
      .where(eq(activations.id, activated.activationId));
    expect(await serverRows()).toEqual([
      {
        id: body.data.server_id,
        activationId: activated.activationId,
        agentTokenHash: sha256Hex(body.data.agent_token),
        hostname: activation!.hostname,
        publicIp: activation!.publicIp,
        machineId: activation!.machineId,
        sshFingerprint: activation!.sshFingerprint,
        agentVersion: AGENT_VERSION,
        status: 'active',
        registeredAt: t.clock.now(),
        lastSeenAt: null,
        notifiedHealth: 'active',
        lastReport: null,
        revokedAt: null,
        lastCheckinIp: null,
        previousCheckinIp: null,
        addressAlternations: 0,
        tags: {},
        checkinBucketStart: null,
        checkinCount: 0,
      },
    ]);
    expect(activation).toMatchObject({ status: 'activated', installTokenUsedAt: null });
    expect((await confirmRequest(t, activated.activationId, activated.installToken)).status).toBe(200);
  });

  it('a register repeated before the first check-in answers 201 with the same server and a new agent token', async () => {
    const activated = await activatedInstall(t);
    const first = (await (await registerRequest(t, registration(activated))).json()).data;
    const repeat = await registerRequest(t, registration(activated));
    expect(repeat.status).toBe(201);
    const second = (await repeat.json()).data;
    expect(second.server_id).toBe(first.server_id);
    expect(second.agent_token).not.toBe(first.agent_token);
    expect(await serverRows()).toEqual([expect.objectContaining({ agentTokenHash: sha256Hex(second.agent_token) })]);
    expect(
      (await t.database.db.select().from(events).where(eq(events.type, 'server.agent_token_reissued'))).map((e) => [
        e.serverId,
        e.activationId,
      ]),
    ).toEqual([[first.server_id, activated.activationId]]);
  });

  it('a register repeated before the first check-in revokes the agent token the lost answer carried', async () => {
    const activated = await activatedInstall(t);
    const first = (await (await registerRequest(t, registration(activated))).json()).data;
    const second = (await (await registerRequest(t, registration(activated))).json()).data;
    expect((await checkinRequest(t, bearer(first.agent_token))).status).toBe(401);
    expect((await checkinRequest(t, bearer(second.agent_token))).status).toBe(200);
  });

  it('refuses a register repeated after the first check-in with 409 server_already_registered', async () => {
    const activated = await activatedInstall(t);
    const first = (await (await registerRequest(t, registration(activated))).json()).data;
    expect((await checkinRequest(t, bearer(first.agent_token))).status).toBe(200);
    await expectError(await registerRequest(t, registration(activated)), 409, 'server_already_registered');
    expect(await serverRows()).toHaveLength(1);
    expect((await checkinRequest(t, bearer(first.agent_token))).status).toBe(200);
  });

  it('of concurrent registers of one activation, one server is made and exactly one agent token works', async () => {
    const activated = await activatedInstall(t);
    const answers = await Promise.all(Array.from({ length: 6 }, () => registerRequest(t, registration(activated))));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const tokens = await Promise.all(answers.map(async (r) => (await r.json()).data.agent_token as string));
    const [server] = await serverRows();
    expect(await serverRows()).toHaveLength(1);
    expect(tokens.filter((token) => sha256Hex(token) === server!.agentTokenHash)).toHaveLength(1);
  });

  it('refuses a released activation with 409 activation_released', async () => {
    const activated = await activatedInstall(t);
    expect((await releaseRequest(t, activated.activationId, { address: activated.address })).status).toBe(200);
    await expectError(await registerRequest(t, registration(activated)), 409, 'activation_released');
    expect(await serverRows()).toHaveLength(0);
  });

  it('refuses a consumed install token (after confirm) with 409 install_token_used', async () => {
    const activated = await activatedInstall(t);
    expect((await confirmRequest(t, activated.activationId, activated.installToken)).status).toBe(200);
    await expectError(await registerRequest(t, registration(activated)), 409, 'install_token_used');
    expect(await serverRows()).toHaveLength(0);
  });

  it('refuses an expired install token with 401 install_token_invalid', async () => {
    const activated = await activatedInstall(t);
    t.clock.advance(3601);
    await expectError(await registerRequest(t, registration(activated)), 401, 'install_token_invalid');
    expect(await serverRows()).toHaveLength(0);
  });

  it('refuses a tampered token and the token of another activation with 401 install_token_invalid', async () => {
    const first = await activatedInstall(t);
    const second = await activatedInstall(t);
    const tampered = `${first.installToken.slice(0, -4)}AAAA`;
    await expectError(
      await registerRequest(t, { ...registration(first), install_token: tampered }),
      401,
      'install_token_invalid',
    );
    await expectError(
      await registerRequest(t, { ...registration(first), install_token: second.installToken }),
      401,
      'install_token_invalid',
    );
    expect(await serverRows()).toHaveLength(0);
  });

  it('answers 404 activation_not_found for a validly signed token of an unknown activation', async () => {
    const now = t.clock.now();
    const token = await signInstallToken(
      t.keys,
      { activationId: 'act_0000000000000000', jti: 'unknown-jti' },
      now,
      new Date(now.getTime() + 600_000),
    );
    await expectError(
      await registerRequest(t, {
        activation_id: 'act_0000000000000000',
        install_token: token,
        agent_version: AGENT_VERSION,
      }),
      404,
      'activation_not_found',
    );
  });

  it('answers 400 validation_failed naming the fields of a bad body', async () => {
    const res = await registerRequest(t, { activation_id: 'nope', agent_version: 'latest' });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('activation_id');
    expect(error.message).toContain('install_token');
    expect(error.message).toContain('agent_version');
  });

  it('accepts dotted-date and semver agent versions and refuses longer than 64 characters', async () => {
    const base = { activation_id: 'act_0000000000000000', install_token: 'x.y.z' };
    for (const version of ['2026.11.20.1', '1.4.2', '1.4.2-rc.1', '1.4.2+build.7']) {
      await expectError(await registerRequest(t, { ...base, agent_version: version }), 401, 'install_token_invalid');
    }
    await expectError(
      await registerRequest(t, { ...base, agent_version: `1.2.3-${'a'.repeat(60)}` }),
      400,
      'validation_failed',
    );
  });

  it('answers 400 for a body that is not JSON, 415 for another content type and 413 over 8 KiB', async () => {
    await expectError(
      await t.request('/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"activation_id":',
      }),
      400,
      'validation_failed',
    );
    await expectError(
      await t.request('/register', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' }),
      415,
      'unsupported_media_type',
    );
    const big = {
      activation_id: 'act_0000000000000000',
      install_token: 'x',
      agent_version: AGENT_VERSION,
      padding: 'p'.repeat(9000),
    };
    await expectError(await registerRequest(t, big), 413, 'payload_too_large');
  });
});
