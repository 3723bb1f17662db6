import { expect } from 'vitest';
import { dispatchEvents } from '../../src/domain/webhooks/dispatch.js';
import { registerRequest, AGENT_VERSION } from '../legacy/agent-requests.js';
import {
  activateRequest,
  confirmRequest,
  freshClient,
  issueCode,
  precheckToken,
  randomMachine,
  releaseRequest,
} from '../support/install-flow.js';
import { postJson, type TestApp } from '../support/test-app.js';
import { ADMIN_TOKEN } from './console-support.js';

/** An activation on a host of this name (and a server registered for it when `register`). */
async function installOn(
  t: TestApp,
  hostname: string,
  publicIp = '203.0.113.7',
): Promise<{ activationId: string; installToken: string }> {
  const code = await issueCode(t);
  const onMachine = randomMachine();
  const res = await activateRequest(
    t,
    code,
    await precheckToken(t, code, onMachine),
    { ...onMachine, hostname, public_ip: publicIp },
    freshClient().address,
  );
  expect(res.status).toBe(200);
  const { data } = await res.json();
  return { activationId: data.activation_id, installToken: data.install_token };
}

/**
 * A small fleet over the last days, for the console's views: activations confirmed, released and
 * waiting, servers, a webhook endpoint with deliveries. The clock ends where it started.
 */
export async function seedFleet(t: TestApp): Promise<void> {
  const start = t.clock.now();
  const hour = 3600;
  for (let h = 6 * 24; h > 0; h -= 7) {
    t.clock.set(new Date(start.getTime() - h * hour * 1000));
    const done = await installOn(t, `edge-${h}.fleet.example.net`);
    const register = await registerRequest(t, {
      activation_id: done.activationId,
      install_token: done.installToken,
      agent_version: AGENT_VERSION,
    });
    expect(register.status).toBe(201);
    if (h % 3 === 0)
      expect((await releaseRequest(t, done.activationId, { installToken: done.installToken })).status).toBe(200);
    else expect((await confirmRequest(t, done.activationId, done.installToken)).status).toBe(200);
  }
  t.clock.set(start);
  const endpoint = await t.request(
    '/api/v2/admin/webhooks',
    postJson(
      { url: 'http://127.0.0.1:9/hooks', description: 'Billing', events: ['*'] },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    ),
  );
  expect(endpoint.status).toBe(201);
  await installOn(t, 'vpn-amsterdam-3.example.net', '198.51.100.23');
  await dispatchEvents(t.database.db, t.clock.now());
}
