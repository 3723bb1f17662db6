import { AGENT_VERSION, registerRequest } from '../legacy/agent-requests.js';
import { activateRequest, issue, newBrowser, precheckRequest } from './install-flow.js';
import type { TestApp } from './test-app.js';

/**
 * Issue → precheck → activate → register from one new client, answering the ids and every secret
 * the install met (cookie, code, both tokens, the install token's jti, the agent token), for tests
 * that assert none of them is stored, logged or answered.
 */
export async function installCollectingSecrets(t: TestApp) {
  const browser = await newBrowser(t);
  const { address } = browser;
  const issued = await issue(t, browser);
  const { data: pre } = await (await precheckRequest(t, issued.code, {}, address)).json();
  const { data: act } = await (await activateRequest(t, issued.code, pre.precheck_token, {}, address)).json();
  const { data: reg } = await (
    await registerRequest(
      t,
      { activation_id: act.activation_id, install_token: act.install_token, agent_version: AGENT_VERSION },
      address,
    )
  ).json();
  const jti = JSON.parse(Buffer.from(act.install_token.split('.')[1], 'base64url').toString()).jti as string;
  return {
    activationId: act.activation_id as string,
    installToken: act.install_token as string,
    serverId: reg.server_id as string,
    agentToken: reg.agent_token as string,
    secrets: [
      browser.cookie.split('=')[1]!,
      issued.code,
      pre.precheck_token,
      act.install_token,
      jti,
      reg.agent_token,
    ] as string[],
  };
}
