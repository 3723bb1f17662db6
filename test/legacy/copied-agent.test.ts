import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, adminList } from '../admin/admin-requests.js';
import { useTestApp, type TestApp } from '../support/test-app.js';
import { bearer, checkinRequest, registeredServer } from './agent-requests.js';

/** Check-ins of one agent token from these addresses, in order (each a minute apart). */
async function checkInFrom(t: TestApp, agentToken: string, addresses: string[]) {
  for (const address of addresses) {
    t.clock.advance(60);
    expect((await checkinRequest(t, bearer(agentToken), undefined, address)).status).toBe(200);
  }
}

const serverRecord = async (t: TestApp, serverId: string) =>
  (await adminList(t, 'servers')).items.find((s) => s.server_id === serverId)!;

describe('a copied legacy agent: one agent token checking in from two addresses in alternation', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('A, B, A, B: flagged for the operator on the admin server list, with both addresses', async () => {
    const server = await registeredServer(t);
    await checkInFrom(t, server.agentToken, ['198.51.100.1', '198.51.100.2', '198.51.100.1']);
    expect(await serverRecord(t, server.serverId)).toMatchObject({
      agent_copy_suspected: false,
      checkin_addresses: ['198.51.100.1', '198.51.100.2'],
    });
    await checkInFrom(t, server.agentToken, ['198.51.100.2', '198.51.100.1']);
    expect(await serverRecord(t, server.serverId)).toMatchObject({
      agent_copy_suspected: true,
      checkin_addresses: ['198.51.100.1', '198.51.100.2'],
    });
  });

  it('one agent that stays, or moves to a new address now and then, is never flagged', async () => {
    const server = await registeredServer(t);
    await checkInFrom(t, server.agentToken, [
      '198.51.100.1',
      '198.51.100.1',
      '198.51.100.2',
      '198.51.100.2',
      '198.51.100.3',
      '198.51.100.3',
      '198.51.100.4',
    ]);
    expect(await serverRecord(t, server.serverId)).toMatchObject({
      agent_copy_suspected: false,
      checkin_addresses: ['198.51.100.4', '198.51.100.3'],
    });
  });

  it('a third address starts the count afresh', async () => {
    const server = await registeredServer(t);
    await checkInFrom(t, server.agentToken, [
      '198.51.100.1',
      '198.51.100.2',
      '198.51.100.1',
      '198.51.100.9',
      '198.51.100.1',
      '198.51.100.9',
    ]);
    expect(await serverRecord(t, server.serverId)).toMatchObject({ agent_copy_suspected: false });
  });
});
