import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countsByLimit, expectRateLimited, parseRateLimit } from '../rate-limits/rate-limit-support.js';
import { expectError } from '../support/install-flow.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import {
  AGENT_VERSION,
  bearer,
  checkinRequest,
  registeredServer,
  registerRequest,
  revokeRequest,
} from './agent-requests.js';

describe('limits of the legacy routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  beforeEach(async () => {
    await t.database.reset();
    t.clock.set('2026-11-22T10:20:00.000Z');
  });
  afterAll(() => t.close());

  // A well-formed register whose token is not valid: it is counted, then refused with 401.
  const forged = { activation_id: 'act_0000000000000000', install_token: 'a.b.c', agent_version: AGENT_VERSION };

  it('register is limited to 10 per IP per UTC hour, bad tokens included, until the hour ends', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await registerRequest(t, forged, '192.0.2.50');
      expect(parseRateLimit(res.headers.get('ratelimit'))['register-ip-hour']).toEqual({ r: 9 - i, t: 2400 });
      await expectError(res, 401, 'install_token_invalid');
    }
    await expectRateLimited(await registerRequest(t, forged, '192.0.2.50'), 'register-ip-hour', 2400);
    await expectError(await registerRequest(t, forged, '192.0.2.51'), 401, 'install_token_invalid');
    t.clock.set('2026-11-22T11:00:00.000Z');
    await expectError(await registerRequest(t, forged, '192.0.2.50'), 401, 'install_token_invalid');
  });

  it('register: a refused request does not reach the token check and the limit leaves valid installs of other IPs alone', async () => {
    for (let i = 0; i < 10; i++) await registerRequest(t, forged, '192.0.2.60');
    expect((await countsByLimit(t))['register-ip-hour']).toBe(10);
    await expectRateLimited(await registerRequest(t, forged, '192.0.2.60'), 'register-ip-hour', 2400);
    expect((await countsByLimit(t))['register-ip-hour']).toBe(10);
    const server = await registeredServer(t);
    expect(server.serverId).toMatch(/^srv_/);
  });

  it('checkin is limited to 120 per server per UTC hour, revoked or not, counted apart for each server and each hour', async () => {
    const noisy = await registeredServer(t);
    const quiet = await registeredServer(t);
    await revokeRequest(t, bearer(noisy.agentToken));
    for (let i = 0; i < 120; i++) {
      const res = await checkinRequest(t, bearer(noisy.agentToken), i % 2 ? {} : undefined);
      expect(res.status).toBe(i % 2 ? 400 : 200);
    }
    await expectRateLimited(await checkinRequest(t, bearer(noisy.agentToken)), 'checkin-server-hour', 2400);
    const other = await checkinRequest(t, bearer(quiet.agentToken));
    expect(other.status).toBe(200);
    expect(parseRateLimit(other.headers.get('ratelimit'))['checkin-server-hour']).toEqual({ r: 119, t: 2400 });
    t.clock.set('2026-11-22T11:00:00.000Z');
    expect((await (await checkinRequest(t, bearer(noisy.agentToken))).json()).data.status).toBe('revoked');
  });

  it('checkin without a valid agent token is 401 and counts nowhere', async () => {
    await expectError(await checkinRequest(t, bearer('unknown-token')), 401, 'agent_token_invalid');
    await expectError(await checkinRequest(t, {}), 401, 'agent_token_invalid');
    expect(await countsByLimit(t)).toEqual({});
  });
});
