import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInstall } from '../src/index.js';
import {
  activateBody,
  address,
  apiError,
  INSTALLER_VERSION,
  issueCode,
  machine,
  precheckBody,
  transports,
  type ClientHarness,
} from './client-harness.js';

const ADMIN_TOKEN = 'operator-secret-0123456789abcdef0123456789';

describe.each(transports)('the legacy routes through the client, %s', (_name, transport) => {
  let h: ClientHarness;
  beforeAll(async () => {
    h = await transport({ ADMIN_TOKEN });
  });
  beforeEach(() => h.t.database.reset());
  afterAll(() => h?.close());

  async function activated() {
    const code = await issueCode(h);
    const precheck = await h.client.precheck(precheckBody(code));
    return h.client.activate(activateBody(code, precheck.precheck_token));
  }

  it('register → checkin → status → revoke: the agent’s whole life', async () => {
    const activation = await activated();
    const server = await h.client.register({
      activation_id: activation.activation_id,
      install_token: activation.install_token,
      agent_version: '2026.11.20.1',
    });
    expect(server).toEqual({
      server_id: expect.stringMatching(/^srv_[0-9a-f]{16}$/),
      agent_token: expect.any(String),
      checkin_interval_seconds: expect.any(Number),
    });

    expect(
      await h.client.checkin(server.agent_token, {
        agent_version: '2026.11.20.1',
        uptime_seconds: 60,
        services: [{ name: 'slowdns-server.service', state: 'active' }],
      }),
    ).toEqual({
      status: 'active',
      checkin_interval_seconds: server.checkin_interval_seconds,
    });
    expect(await h.client.status(server.agent_token)).toEqual({
      server_id: server.server_id,
      status: 'active',
      hostname: address.hostname,
      registered_at: '2026-11-22T10:00:00+00:00',
      last_seen_at: '2026-11-22T10:00:00+00:00',
    });
    expect(await h.client.status()).toMatchObject({ service: 'slowdns-activation', database: 'reachable' });

    expect(await h.client.revoke(server.agent_token)).toEqual({
      server_id: server.server_id,
      status: 'revoked',
      revoked_at: '2026-11-22T10:00:00+00:00',
    });
    expect(
      (await h.client.checkin(server.agent_token, { agent_version: '2026.11.20.1', uptime_seconds: 61, services: [] }))
        .status,
    ).toBe('revoked');
  });

  it('the operator revokes any server with ADMIN_TOKEN and its id', async () => {
    const activation = await activated();
    const server = await h.client.register({
      activation_id: activation.activation_id,
      install_token: activation.install_token,
      agent_version: '2026.11.20.1',
    });
    expect(await h.client.revoke(ADMIN_TOKEN, { server_id: server.server_id })).toMatchObject({
      server_id: server.server_id,
      status: 'revoked',
    });
    await apiError(h.client.revoke(ADMIN_TOKEN, { server_id: 'srv_0000000000000000' }), 404, 'server_not_found');
  });

  it('runInstall with register inside the install step: the reference order, register before confirm', async () => {
    let agentToken: string | undefined;
    const result = await runInstall({
      client: h.client,
      installCode: await issueCode(h),
      machine,
      installerVersion: INSTALLER_VERSION,
      requestedRef: 'main',
      signals: [],
      confirmAddress: async () => address,
      install: async (activation) => {
        const server = await h.client.register({
          activation_id: activation.activation_id,
          install_token: activation.install_token,
          agent_version: INSTALLER_VERSION,
        });
        agentToken = server.agent_token;
      },
    });
    expect(result.outcome).toBe('confirmed');
    expect(await h.client.status(agentToken!)).toMatchObject({ status: 'active', hostname: address.hostname });
  });
});
