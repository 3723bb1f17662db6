import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/test-app.js';
import { bearer, checkinRequest, registeredServer, revokeRequest, statusRequest } from './agent-requests.js';

describe('GET /status', () => {
  const t = useTestApp();

  it('the service status without credentials, the server record with an agent token', async () => {
    const anonymous = await statusRequest(t);
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual({
      data: {
        service: 'slowdns-activation',
        version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
        time: '2026-11-22T10:00:00+00:00',
        database: 'reachable',
      },
      meta: { message: expect.any(String) },
    });

    const server = await registeredServer(t);
    const before = (await (await statusRequest(t, bearer(server.agentToken))).json()).data;
    expect(before).toEqual({
      server_id: server.serverId,
      status: 'active',
      hostname: 'vpn1.example.net',
      registered_at: '2026-11-22T10:00:00+00:00',
      last_seen_at: null,
    });

    t.clock.advance(90);
    await checkinRequest(t, bearer(server.agentToken));
    await revokeRequest(t, bearer(server.agentToken));
    const after = (await (await statusRequest(t, bearer(server.agentToken))).json()).data;
    expect(after).toMatchObject({ status: 'revoked', last_seen_at: '2026-11-22T10:01:30+00:00' });
  });
});
