import { expect } from 'vitest';
import {
  freshClient,
  INSTALLER_VERSION,
  machine,
  precheckRequest,
  type Browser,
  type IssuedCode,
  type Machine,
} from './install-flow.js';
import { postJson, type TestApp } from './test-app.js';

/** A code issued to `browser` with `{"require_approval": true}` (201 with `require_approval: true`, or the test fails). */
export async function issueWithApproval(t: TestApp, browser: Browser): Promise<IssuedCode> {
  const res = await t.request(
    '/api/v2/slowdns/code/issue',
    postJson({ require_approval: true }, { cookie: browser.cookie, ...browser.headers }),
    browser.address,
  );
  expect(res.status).toBe(201);
  const { data } = await res.json();
  expect(data.require_approval).toBe(true);
  return { code: data.install_code, id: data.install_code_id, hint: data.install_code_hint };
}

export interface WaitingPrecheck {
  precheckId: string;
  token: string;
}

/** A precheck of a code issued with approval: 200, `approval: "pending"` and its `precheck_id`. */
export async function precheckWaiting(
  t: TestApp,
  code: string,
  onMachine: Machine = machine,
  address = freshClient().address,
): Promise<WaitingPrecheck> {
  const res = await precheckRequest(t, code, { ...onMachine, installer_version: INSTALLER_VERSION }, address);
  expect(res.status).toBe(200);
  const { data } = await res.json();
  expect(data.approval).toBe('pending');
  return { precheckId: data.precheck_id, token: data.precheck_token };
}

/** `browser` approves or denies a precheck of one of its codes; `headers` adds to (or overrides) what it sends. */
export function decisionRequest(
  t: TestApp,
  decision: 'approve' | 'deny',
  browser: Browser,
  installCodeId: string,
  precheckId: string,
  headers: Record<string, string> = {},
) {
  return t.request(
    `/api/v2/slowdns/code/${decision}`,
    postJson(
      { install_code_id: installCodeId, precheck_id: precheckId },
      { cookie: browser.cookie, ...browser.headers, ...headers },
    ),
    browser.address,
  );
}
