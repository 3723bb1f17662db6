import { expect } from 'vitest';
import { ADMIN_TOKEN, adminAction } from '../admin/admin-requests.js';
import { activateRequest, INSTALLER_VERSION, type Machine, randomMachine } from '../support/install-flow.js';
import { postJson, type TestApp } from '../support/test-app.js';

export { ADMIN_TOKEN };

/** POST /api/v2/admin/install-codes with the operator token (or `token`). */
export function createCodeRequest(t: TestApp, body: Record<string, unknown>, token = ADMIN_TOKEN) {
  return t.request('/api/v2/admin/install-codes', postJson(body, { authorization: `Bearer ${token}` }));
}

/** A fleet code; answers its `data` (fails on a non-201). */
export async function createCode(t: TestApp, body: Record<string, unknown>) {
  const res = await createCodeRequest(t, body);
  const json = await res.json();
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(json)}`);
  return json.data as { install_code: string; install_code_id: string; warnings: string[] } & Record<string, any>;
}

export function fleetPrecheck(t: TestApp, code: string, onMachine: Machine, address: string) {
  return t.request(
    '/api/v2/slowdns/install/precheck',
    postJson({ install_code: code, ...onMachine, product: 'slowdns', installer_version: INSTALLER_VERSION }),
    address,
  );
}

export interface Enrolled {
  status: number;
  code: string | undefined;
  activationId?: string;
  installToken?: string;
  machine: Machine;
}

/** Precheck then activate one new machine from `address` (hostname `hostname`); answers how it went. */
export async function enroll(
  t: TestApp,
  code: string,
  { address, hostname = 'db1.prod.example.com' }: { address: string; hostname?: string },
): Promise<Enrolled> {
  const machine = randomMachine();
  const pre = await fleetPrecheck(t, code, machine, address);
  if (pre.status !== 200) return { status: pre.status, code: (await pre.json()).error.code, machine };
  const token = (await pre.json()).data.precheck_token;
  const res = await activateRequest(t, code, token, { ...machine, hostname }, address);
  const body = await res.json();
  if (res.status !== 200) return { status: res.status, code: body.error.code, machine };
  return {
    status: 200,
    code: undefined,
    activationId: body.data.activation_id,
    installToken: body.data.install_token,
    machine,
  };
}

export async function showCode(t: TestApp, id: string) {
  const res = await t.request(`/api/v2/admin/install-codes/${id}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()).data as Record<string, any>;
}

export function decide(t: TestApp, codeId: string, precheckId: string, decision: 'approve' | 'deny') {
  return adminAction(t, `install-codes/${codeId}/prechecks/${precheckId}/${decision}`);
}
