import { describe, expect, it } from 'vitest';
import { AGENT_VERSION, registeredServer, registerRequest } from '../legacy/agent-requests.js';
import { eventTrail } from '../support/event-trail.js';
import {
  activatedInstall,
  confirmRequest,
  expectError,
  freshClient,
  precheckRequest,
  randomMachine,
  releaseRequest,
} from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, adminAction, adminList, allPages } from './admin-requests.js';

describe('admin: activations', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('lists an activation with its binding, ref, installer version, times and its server', async () => {
    const machine = randomMachine();
    const server = await registeredServer(t);
    t.clock.advance(5);
    const other = await activatedInstall(t, machine);
    const page = await adminList(t, 'activations');
    expect(page.items.map((i) => i.activation_id)).toEqual([other.activationId, server.activationId]);
    expect(page.items[1]).toEqual({
      activation_id: server.activationId,
      install_code_id: expect.stringMatching(/^ic_[0-9a-f]{16}$/),
      status: 'activated',
      machine_binding: {
        hostname: 'vpn1.example.net',
        public_ip: '203.0.113.7',
        machine_id: expect.any(String),
        ssh_fingerprint: expect.stringMatching(/^SHA256:/),
        ssh_key_proven: false,
      },
      requested_ref: 'main',
      installer_version: '2026.11.20.1',
      created_at: '2026-11-22T10:00:00+00:00',
      install_token_expires_at: '2026-11-22T11:00:00+00:00',
      confirmed_at: null,
      released_at: null,
      install_code_restored: null,
      duplicate_of: null,
      server: { server_id: server.serverId, status: 'active', health: 'active', last_seen_at: null },
      tags: {},
    });
    expect(page.items[0]).toMatchObject({ machine_binding: { machine_id: machine.machine_id }, server: null });
  });

  it('filters by status, machine_id, hostname, public_ip, install code and time range', async () => {
    const machine = randomMachine();
    const confirmed = await activatedInstall(t, machine);
    expect((await confirmRequest(t, confirmed.activationId, confirmed.installToken)).status).toBe(200);
    t.clock.advance(60);
    const released = await activatedInstall(t);
    expect((await releaseRequest(t, released.activationId, { address: released.address })).status).toBe(200);
    const code = released.code;
    t.clock.advance(1);
    const again = await activatedInstall(t); // another code, other machine
    const ids = async (query: Record<string, string>) =>
      (await adminList(t, 'activations', query)).items.map((i) => i.activation_id);

    expect(await ids({ status: 'confirmed' })).toEqual([confirmed.activationId]);
    expect(await ids({ status: 'released' })).toEqual([released.activationId]);
    expect(await ids({ status: 'activated' })).toEqual([again.activationId]);
    expect(await ids({ machine_id: machine.machine_id })).toEqual([confirmed.activationId]);
    expect(await ids({ hostname: 'vpn1.example.net' })).toHaveLength(3);
    expect(await ids({ hostname: 'other.example.net' })).toEqual([]);
    expect(await ids({ public_ip: '203.0.113.7' })).toHaveLength(3);
    expect(await ids({ until: '2026-11-22T10:00:30+00:00' })).toEqual([confirmed.activationId]);
    expect(await ids({ since: '2026-11-22T10:00:30+00:00' })).toEqual([again.activationId, released.activationId]);
    const releasedItem = (await adminList(t, 'activations', { status: 'released' })).items[0]!;
    expect(releasedItem).toMatchObject({ install_code_restored: true, released_at: '2026-11-22T10:01:00+00:00' });
    expect(await ids({ install_code_id: releasedItem.install_code_id })).toEqual([released.activationId]);
    expect(code).toMatch(/^SDNS-/);
  });

  it('pages with no duplicate or gap while activations are added between pages', async () => {
    const before: string[] = [];
    for (let i = 0; i < 5; i++) before.push((await activatedInstall(t)).activationId);
    const seen = (await allPages(t, 'activations', { limit: 2 }, async () => void (await activatedInstall(t)))).map(
      (i) => i.activation_id,
    );
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(before));
  });

  it('force-release restores the code by default, revokes its server, and records the operator', async () => {
    const server = await registeredServer(t);
    const trail = eventTrail(t);
    await trail.take();
    const res = await adminAction(t, `activations/${server.activationId}/release`);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toEqual({
      activation_id: server.activationId,
      status: 'released',
      install_code_restored: true,
    });
    expect((await trail.take()).map((e) => [e.type, e.actor])).toEqual([
      ['activation.released', 'operator'],
      ['install_code.restored', 'operator'],
      ['server.revoked', 'operator'],
    ]);
    expect((await adminList(t, 'servers')).items[0]).toMatchObject({ server_id: server.serverId, health: 'revoked' });
    // Idempotent, and the installer's own release of it answers the same.
    expect(
      (await (await adminAction(t, `activations/${server.activationId}/release`)).json()).data.install_code_restored,
    ).toBe(true);
    expect((await releaseRequest(t, server.activationId, { address: server.address })).status).toBe(200);
    expect(await trail.types()).toEqual([]);
    expect((await precheckRequest(t, server.code, {}, freshClient().address)).status).toBe(200);
  });

  it('force-release with restore_install_code false revokes the code: a retry with it is 410 install_code_revoked', async () => {
    const a = await activatedInstall(t);
    const trail = eventTrail(t);
    await trail.take();
    const res = await adminAction(t, `activations/${a.activationId}/release`, { restore_install_code: false });
    expect((await res.json()).data).toEqual({
      activation_id: a.activationId,
      status: 'released',
      install_code_restored: false,
    });
    expect((await trail.take()).map((e) => [e.type, e.actor, e.data])).toEqual([
      [
        'activation.released',
        'operator',
        { install_code_restored: false, released_by: 'operator', operator: 'root', reason: null },
      ],
      ['install_code.revoked', 'operator', { operator: 'root', reason: null }],
    ]);
    await expectError(await precheckRequest(t, a.code, {}, freshClient().address), 410, 'install_code_revoked');
    await expectError(
      await registerRequest(t, {
        activation_id: a.activationId,
        install_token: a.installToken,
        agent_version: AGENT_VERSION,
      }),
      409,
      'activation_released',
    );
  });

  it('force-release of a confirmed activation is 409, of an unknown one 404, with a bad body 400', async () => {
    const a = await activatedInstall(t);
    expect((await confirmRequest(t, a.activationId, a.installToken)).status).toBe(200);
    await expectError(await adminAction(t, `activations/${a.activationId}/release`), 409, 'activation_confirmed');
    await expectError(await adminAction(t, 'activations/act_0000000000000000/release'), 404, 'activation_not_found');
    await expectError(
      await adminAction(t, `activations/${a.activationId}/release`, { restore_install_code: 'no' }),
      400,
      'validation_failed',
    );
  });
});
