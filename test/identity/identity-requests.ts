import { expect } from 'vitest';
import { INSTALLER_VERSION, type Machine, randomMachine } from '../support/install-flow.js';
import { postJson, type TestApp } from '../support/test-app.js';
import { createCode } from '../fleet-codes/fleet-requests.js';
import { WORKLOAD_AUDIENCE } from '../support/workload-issuers.js';

/** A fleet code trusting `issuer` (DESIGN §25); `trust` adds to or replaces the block's defaults. */
export async function trustCode(
  t: TestApp,
  issuer: string,
  { trust = {}, ...rest }: { trust?: Record<string, unknown> } & Record<string, unknown> = {},
) {
  return createCode(t, {
    uses: 10,
    ttl_seconds: 86_400,
    trust: {
      issuer,
      audiences: [WORKLOAD_AUDIENCE],
      subject_pattern: 'repo:example-org/*:ref:refs/heads/main',
      ...trust,
    },
    ...rest,
  });
}

export function identityPrecheck(
  t: TestApp,
  codeId: string,
  token: string,
  onMachine: Machine,
  address = '198.51.100.20',
) {
  return t.request(
    '/api/v2/slowdns/install/precheck',
    postJson({
      install_code_id: codeId,
      identity_token: token,
      ...onMachine,
      product: 'slowdns',
      installer_version: INSTALLER_VERSION,
    }),
    address,
  );
}

export function identityActivate(
  t: TestApp,
  codeId: string,
  precheckToken: string,
  onMachine: Machine,
  address = '198.51.100.20',
) {
  return t.request(
    '/api/v2/slowdns/install/activate',
    postJson({
      install_code_id: codeId,
      precheck_token: precheckToken,
      hostname: 'runner1.example.net',
      public_ip: '198.51.100.20',
      ...onMachine,
      requested_ref: 'main',
      installer_version: INSTALLER_VERSION,
    }),
    address,
  );
}

/** Precheck and activate with an identity token; answers the activate's answer (or the precheck's, when refused). */
export async function identityEnroll(t: TestApp, codeId: string, token: string, onMachine = randomMachine()) {
  const pre = await identityPrecheck(t, codeId, token, onMachine);
  if (pre.status !== 200) return pre;
  const { data } = await pre.json();
  expect(data.install_code).toBeUndefined();
  return identityActivate(t, codeId, data.precheck_token, onMachine);
}
