import { expect } from 'vitest';
import { activatedInstall, type Activated } from '../support/install-flow.js';
import { postJson, type TestApp } from '../support/test-app.js';

export const AGENT_VERSION = '2026.11.20.1';

export const report = {
  agent_version: AGENT_VERSION,
  uptime_seconds: 86_400,
  services: [
    { name: 'slowdns-server.service', state: 'active' },
    { name: 'sshd.service', state: 'active' },
  ],
};

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export function registerRequest(t: TestApp, body: Record<string, unknown>, address?: string) {
  return t.request('/register', postJson(body), address);
}

export function checkinRequest(t: TestApp, headers: Record<string, string>, body: unknown = report, address?: string) {
  return t.request('/checkin', postJson(body, headers), address);
}

/** POST /revoke; `body` undefined sends no body and no Content-Type, as an agent may. */
export function revokeRequest(t: TestApp, headers: Record<string, string>, body?: unknown) {
  return t.request('/revoke', body === undefined ? { method: 'POST', headers } : postJson(body, headers));
}

export function statusRequest(t: TestApp, headers: Record<string, string> = {}) {
  return t.request('/status', { headers });
}

export interface Registered extends Activated {
  serverId: string;
  agentToken: string;
}

/** Issue → precheck → activate → register: a server with its agent token, before confirm. */
export async function registeredServer(t: TestApp): Promise<Registered> {
  const activated = await activatedInstall(t);
  const res = await registerRequest(t, {
    activation_id: activated.activationId,
    install_token: activated.installToken,
    agent_version: AGENT_VERSION,
  });
  expect(res.status).toBe(201);
  const { data } = await res.json();
  return { ...activated, serverId: data.server_id, agentToken: data.agent_token };
}
