import { describe, expect, it } from 'vitest';
import { activatedInstall, expectError, issue, newBrowser } from '../support/install-flow.js';
import { postJson, type TestApp, useTestApp } from '../support/test-app.js';
import { registeredServer } from '../legacy/agent-requests.js';
import { ADMIN_TOKEN, adminList } from './admin-requests.js';

const root = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function shown(t: TestApp, path: string) {
  const res = await t.request(`/api/v2/admin/${path}`, { headers: root });
  expect(res.status).toBe(200);
  return (await res.json()).data;
}

describe('admin: one object with its history', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('an install code: the record its list shows, and its events oldest first with the operator and the reason', async () => {
    const code = await issue(t, await newBrowser(t));
    t.clock.advance(5);
    expect(
      (await t.request(`/api/v2/admin/install-codes/${code.id}/revoke`, postJson({ reason: 'Leaked in chat' }, root)))
        .status,
    ).toBe(200);
    const data = await shown(t, `install-codes/${code.id}`);
    const [listed] = (await adminList(t, 'install-codes')).items;
    // Issued without approval: no precheck to show (those of a code with approval: console-code-approval.test.ts).
    // The show adds how many machines wait for a decision (none here) to the record its list shows.
    const { events, activations, prechecks, pending_prechecks, ...record } = data;
    expect(record).toEqual(listed);
    expect({ activations, prechecks, pending_prechecks }).toEqual({
      activations: [],
      prechecks: [],
      pending_prechecks: 0,
    });
    expect(
      events.map((e: Record<string, any>) => [
        e.type,
        e.actor,
        e.occurred_at,
        e.data.operator ?? null,
        e.data.reason ?? null,
      ]),
    ).toEqual([
      ['install_code.issued', 'browser', '2026-11-22T10:00:00+00:00', null, null],
      ['install_code.revoked', 'operator', '2026-11-22T10:00:05+00:00', 'root', 'Leaked in chat'],
    ]);
  });

  it("an activation and a server: their records and events, the server's health as the list shows it", async () => {
    const registered = await registeredServer(t);
    const activation = await shown(t, `activations/${registered.activationId}`);
    expect(activation).toMatchObject({
      activation_id: registered.activationId,
      status: 'activated',
      server: { server_id: registered.serverId, health: 'active' },
    });
    expect(activation.events.map((e: Record<string, any>) => e.type)).toEqual([
      'install_code.activated',
      'activation.created',
      'server.registered',
    ]);
    expect(activation.events.every((e: Record<string, any>) => e.activation_id === registered.activationId)).toBe(true);

    const server = await shown(t, `servers/${registered.serverId}`);
    const { events, ...record } = server;
    expect(record).toEqual((await adminList(t, 'servers')).items[0]);
    expect(events.map((e: Record<string, any>) => [e.type, e.server_id])).toEqual([
      ['server.registered', registered.serverId],
    ]);
  });

  it('an unknown id is 404 with its code', async () => {
    await activatedInstall(t);
    await expectError(
      await t.request('/api/v2/admin/install-codes/ic_0000000000000000', { headers: root }),
      404,
      'install_code_not_found',
    );
    await expectError(
      await t.request('/api/v2/admin/activations/act_0000000000000000', { headers: root }),
      404,
      'activation_not_found',
    );
    await expectError(
      await t.request('/api/v2/admin/servers/srv_0000000000000000', { headers: root }),
      404,
      'server_not_found',
    );
  });

  it('a malformed id is 400 validation_failed', async () => {
    await expectError(await t.request('/api/v2/admin/servers/srv_%00', { headers: root }), 400, 'validation_failed');
  });
});
