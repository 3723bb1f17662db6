import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { installCodes } from '../../src/db/schema.js';
import { releaseActivation } from '../../src/domain/activations/release.js';
import { revokeInstallCode } from '../../src/domain/install-codes/revoke.js';
import { revokeServer } from '../../src/domain/servers/registration.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { rateLimitAddressKey } from '../../src/domain/client-addresses.js';
import { keyedHashes } from '../../src/domain/tokens/keyed-hashes.js';
import {
  AGENT_VERSION,
  bearer,
  checkinRequest,
  registeredServer,
  registerRequest,
  revokeRequest,
} from '../legacy/agent-requests.js';
import { eventTrail } from '../support/event-trail.js';
import {
  activatedInstall,
  activateRequest,
  confirmRequest,
  expectRefusal,
  freshClient,
  issueCode,
  openBrowserSession,
  precheckRequest,
  precheckToken,
  releaseRequest,
} from '../support/install-flow.js';
import { installCollectingSecrets } from '../support/install-secrets.js';
import { postJson, useTestApp } from '../support/test-app.js';
import { queryRows } from '../support/test-database.js';

const ADMIN_TOKEN = 'operator-secret-0123456789abcdef0123456789';
const operator = { actor: 'operator' as const };

describe('the event trail: one event per state change, in the same transaction', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  const codeId = async (code: string) =>
    (
      await t.database.db
        .select()
        .from(installCodes)
        .where(eq(installCodes.codeHash, sha256Hex(code)))
    )[0]!.id;

  it('issue records install_code.issued with its actor, request id and hashed client key', async () => {
    const trail = eventTrail(t);
    const { address, userAgent } = freshClient();
    const cookie = await openBrowserSession(t, address, { 'user-agent': userAgent });
    const res = await t.request(
      '/api/v2/slowdns/code/issue',
      { method: 'POST', headers: { cookie, 'user-agent': userAgent, 'x-request-id': 'req-issue-1' } },
      address,
    );
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data.install_code_id).toMatch(/^ic_[0-9a-f]{16}$/);
    expect(await trail.take()).toEqual([
      expect.objectContaining({
        type: 'install_code.issued',
        actor: 'browser',
        occurredAt: t.clock.now(),
        installCodeId: data.install_code_id,
        activationId: null,
        serverId: null,
        requestId: 'req-issue-1',
        clientKeyHash: keyedHashes(t.config.keyEncryptionKey).clientKey(rateLimitAddressKey(address)),
        data: { hint: data.install_code_hint, expires_at: data.expires_at },
        deliveredAt: null,
      }),
    ]);
  });

  it('the whole life of an install: precheck and check-in record nothing, every change one event', async () => {
    const trail = eventTrail(t);
    const code = await issueCode(t);
    expect(await trail.types()).toEqual(['install_code.issued']);
    const token = await precheckToken(t, code);
    expect(await trail.types()).toEqual([]);

    const activated = await activateRequest(t, code, token, {}, freshClient().address);
    const { activation_id: activationId, install_token: installToken } = (await activated.json()).data;
    const icId = await codeId(code);
    expect(await trail.take()).toEqual([
      expect.objectContaining({
        type: 'install_code.activated',
        actor: 'installer',
        installCodeId: icId,
        activationId,
      }),
      expect.objectContaining({
        type: 'activation.created',
        actor: 'installer',
        installCodeId: icId,
        activationId,
        data: {
          hostname: 'vpn1.example.net',
          public_ip: '203.0.113.7',
          machine_id: expect.any(String),
          ssh_key_proven: false,
        },
      }),
    ]);

    const registered = await registerRequest(t, {
      activation_id: activationId,
      install_token: installToken,
      agent_version: AGENT_VERSION,
    });
    const { server_id: serverId, agent_token: agentToken } = (await registered.json()).data;
    expect(await trail.take()).toEqual([
      expect.objectContaining({
        type: 'server.registered',
        actor: 'installer',
        installCodeId: icId,
        activationId,
        serverId,
      }),
    ]);

    expect((await checkinRequest(t, bearer(agentToken))).status).toBe(200);
    expect(await trail.types()).toEqual([]);

    expect((await confirmRequest(t, activationId, installToken)).status).toBe(200);
    expect(await trail.take()).toEqual([
      expect.objectContaining({ type: 'activation.confirmed', actor: 'installer', installCodeId: icId, activationId }),
      expect.objectContaining({ type: 'install_code.consumed', actor: 'installer', installCodeId: icId, activationId }),
    ]);

    expect((await revokeRequest(t, bearer(agentToken))).status).toBe(200);
    expect(await trail.take()).toEqual([
      expect.objectContaining({
        type: 'server.revoked',
        actor: 'agent',
        activationId,
        serverId,
        data: { cause: 'revoked' },
      }),
    ]);
    // Idempotent: a second revoke changes nothing and records nothing.
    expect((await revokeRequest(t, bearer(agentToken))).status).toBe(200);
    expect(await trail.types()).toEqual([]);
  });

  it('release records the release (restored, by whom), the restored code and the revoked server', async () => {
    const server = await registeredServer(t);
    const trail = eventTrail(t);
    await trail.take();
    expect((await releaseRequest(t, server.activationId, { address: server.address })).status).toBe(200);
    const icId = await codeId(server.code);
    const subjects = { installCodeId: icId, activationId: server.activationId };
    expect(await trail.take()).toEqual([
      expect.objectContaining({
        type: 'activation.released',
        actor: 'installer',
        ...subjects,
        data: { install_code_restored: true, released_by: 'installer', release_proof: 'address' },
      }),
      expect.objectContaining({ type: 'install_code.restored', actor: 'installer', ...subjects }),
      expect.objectContaining({
        type: 'server.revoked',
        actor: 'installer',
        ...subjects,
        serverId: server.serverId,
        data: { cause: 'activation_released' },
      }),
    ]);
  });

  it('a repeated release records nothing', async () => {
    const server = await registeredServer(t);
    expect((await releaseRequest(t, server.activationId, { address: server.address })).status).toBe(200);
    const trail = eventTrail(t);
    await trail.take();
    expect((await releaseRequest(t, server.activationId, { address: server.address })).status).toBe(200);
    expect(await trail.types()).toEqual([]);
  });

  it('a release that cannot restore the code says so and records no restore', async () => {
    const a = await activatedInstall(t);
    t.clock.advance(3600);
    const trail = eventTrail(t);
    await trail.take();
    expect((await releaseRequest(t, a.activationId, { address: a.address })).status).toBe(200);
    expect(await trail.take()).toEqual([
      expect.objectContaining({
        type: 'activation.released',
        data: { install_code_restored: false, released_by: 'installer', release_proof: 'address' },
      }),
    ]);
  });

  it('the operator revoke of /revoke is recorded with the operator as actor', async () => {
    const server = await registeredServer(t);
    const trail = eventTrail(t);
    await trail.take();
    const res = await revokeRequest(t, bearer(ADMIN_TOKEN), { server_id: server.serverId });
    expect(res.status).toBe(200);
    expect(await trail.take()).toEqual([
      expect.objectContaining({ type: 'server.revoked', actor: 'operator', serverId: server.serverId }),
    ]);
  });

  it('refused requests record nothing', async () => {
    const trail = eventTrail(t);
    const a = await activatedInstall(t);
    expect((await confirmRequest(t, a.activationId, a.installToken)).status).toBe(200);
    await trail.take();

    // A confirm repeated by the token's holder reads the first one back (200): nothing recorded either.
    expect((await confirmRequest(t, a.activationId, a.installToken)).status).toBe(200);
    await expectRefusal(
      t,
      () => releaseRequest(t, a.activationId, { address: a.address }),
      409,
      'activation_confirmed',
    );
    await expectRefusal(t, () => precheckRequest(t, a.code), 409, 'install_code_unavailable');
    await expectRefusal(
      t,
      () =>
        registerRequest(t, {
          activation_id: a.activationId,
          install_token: a.installToken,
          agent_version: AGENT_VERSION,
        }),
      409,
      'install_token_used',
    );
    await expectRefusal(
      t,
      () => revokeRequest(t, bearer(ADMIN_TOKEN), { server_id: 'srv_0000000000000000' }),
      404,
      'server_not_found',
    );
    await expectRefusal(
      t,
      () => t.request('/api/v2/slowdns/code/issue', postJson({})),
      403,
      'browser_session_required',
    );
    expect(await trail.types()).toEqual([]);
  });

  it('a change whose transaction fails afterwards leaves neither the change nor its event', async () => {
    const code = await issueCode(t);
    const icId = await codeId(code);
    const a = await activatedInstall(t);
    const server = await registeredServer(t);
    const trail = eventTrail(t);
    await trail.take();
    const failing = (change: (tx: typeof t.database.db) => Promise<unknown>) =>
      expect(
        t.database.db.transaction(async (tx) => {
          await change(tx);
          throw new Error('fails after the change');
        }),
      ).rejects.toThrow('fails after the change');

    await failing((tx) => revokeInstallCode(tx, icId, t.clock.now(), operator));
    await failing((tx) =>
      releaseActivation(tx, { activationId: a.activationId, now: t.clock.now(), context: operator }),
    );
    await failing((tx) => revokeServer(tx, server.serverId, t.clock.now(), operator));
    expect(await trail.types()).toEqual([]);
    expect((await precheckRequest(t, code, {}, freshClient().address)).status).toBe(200);
    expect((await releaseRequest(t, a.activationId, { address: a.address })).status).toBe(200);
    expect((await checkinRequest(t, bearer(server.agentToken))).status).toBe(200);
  });
});

describe('no secret in any event', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('the events of whole installs hold no code, token, cookie, jti, nor the hash of one', async () => {
    const secrets: string[] = [ADMIN_TOKEN];
    for (const finish of ['confirm', 'release'] as const) {
      const install = await installCollectingSecrets(t);
      secrets.push(...install.secrets);
      if (finish === 'confirm')
        expect((await confirmRequest(t, install.activationId, install.installToken)).status).toBe(200);
      else
        expect((await releaseRequest(t, install.activationId, { installToken: install.installToken })).status).toBe(
          200,
        );
      expect((await revokeRequest(t, bearer(ADMIN_TOKEN), { server_id: install.serverId })).status).toBe(200);
    }
    const rows = await queryRows<{ row: string }>(t.database.db, sql`select row_to_json(e)::text as row from events e`);
    // 7 each: issued, activated, created, registered, then confirmed + consumed + revoked, or released + restored + revoked.
    expect(rows.length).toBe(14);
    const dump = rows.map((r) => r.row).join('\n');
    for (const secret of secrets) {
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(sha256Hex(secret));
      expect(dump).not.toContain(secret.replace(/-/g, '').slice(8));
    }
  });
});

describe('revoked install codes', () => {
  const t = useTestApp();

  const codeId = async (code: string) =>
    (
      await t.database.db
        .select()
        .from(installCodes)
        .where(eq(installCodes.codeHash, sha256Hex(code)))
    )[0]!.id;

  it('a revoked code is 410 install_code_revoked at precheck and at activate (with a token made before)', async () => {
    const code = await issueCode(t);
    const token = await precheckToken(t, code);
    const trail = eventTrail(t);
    await trail.take();
    const revoked = await revokeInstallCode(t.database.db, await codeId(code), t.clock.now(), {
      actor: 'operator',
      requestId: 'req-op',
    });
    expect(revoked).toMatchObject({ status: 'revoked', revokedAt: t.clock.now() });
    expect(await trail.take()).toEqual([
      expect.objectContaining({
        type: 'install_code.revoked',
        actor: 'operator',
        installCodeId: revoked.id,
        requestId: 'req-op',
        clientKeyHash: null,
      }),
    ]);

    await expectRefusal(t, () => precheckRequest(t, code, {}, freshClient().address), 410, 'install_code_revoked');
    await expectRefusal(
      t,
      () => activateRequest(t, code, token, {}, freshClient().address),
      410,
      'install_code_revoked',
    );
    expect(await trail.types()).toEqual([]);
  });

  it('revoking a revoked code answers the first revoke and records nothing', async () => {
    const code = await issueCode(t);
    const revoked = await revokeInstallCode(t.database.db, await codeId(code), t.clock.now(), { actor: 'operator' });
    const trail = eventTrail(t);
    await trail.take();
    t.clock.advance(5);
    expect(await revokeInstallCode(t.database.db, revoked.id, t.clock.now(), { actor: 'operator' })).toEqual(revoked);
    expect(await trail.types()).toEqual([]);
  });

  it('a code an activation holds cannot be revoked (409), an unknown id is 404', async () => {
    const a = await activatedInstall(t);
    await expect(
      revokeInstallCode(t.database.db, await codeId(a.code), t.clock.now(), { actor: 'operator' }),
    ).rejects.toMatchObject({ code: 'install_code_unavailable' });
    await expect(
      revokeInstallCode(t.database.db, 'ic_0000000000000000', t.clock.now(), { actor: 'operator' }),
    ).rejects.toMatchObject({ code: 'install_code_not_found' });
  });

  it('a release that revokes the code: the code is revoked, not restored, and the events say so', async () => {
    const a = await activatedInstall(t);
    const trail = eventTrail(t);
    await trail.take();
    const { codeRestored } = await releaseActivation(t.database.db, {
      activationId: a.activationId,
      now: t.clock.now(),
      context: { actor: 'browser' },
      code: 'revoke',
    });
    expect(codeRestored).toBe(false);
    expect(await trail.take()).toEqual([
      expect.objectContaining({
        type: 'activation.released',
        actor: 'browser',
        data: { install_code_restored: false, released_by: 'browser' },
      }),
      expect.objectContaining({ type: 'install_code.revoked', actor: 'browser', activationId: a.activationId }),
    ]);
    await expectRefusal(t, () => precheckRequest(t, a.code, {}, freshClient().address), 410, 'install_code_revoked');
  });
});
