import { describe, expect, it } from 'vitest';
import { SHELL_SAFE_PATTERN } from '../../src/schemas/shell-safe.js';
import { activateRequest, freshClient, issueCode, precheckRequest, randomMachine } from '../support/install-flow.js';
import { postJson, useTestApp } from '../support/test-app.js';

type Schema = { description?: string; pattern?: string; properties?: Record<string, Schema>; anyOf?: Schema[] };

describe('codes, ids and tokens are shell-safe ([A-Za-z0-9._-])', () => {
  const t = useTestApp();

  it('every code, id and token a whole flow hands out is made only of [A-Za-z0-9._-]', async () => {
    // Many rounds: base64url tokens and random codes would show a stray character sooner or later.
    for (let round = 0; round < 8; round++) {
      const onMachine = randomMachine();
      const code = await issueCode(t);
      const precheck = (await (await precheckRequest(t, code, onMachine, freshClient().address)).json()).data;
      const activation = (
        await (await activateRequest(t, code, precheck.precheck_token, onMachine, freshClient().address)).json()
      ).data;
      const server = (
        await (
          await t.request(
            '/register',
            postJson({
              activation_id: activation.activation_id,
              install_token: activation.install_token,
              agent_version: '2026.11.20.1',
            }),
            freshClient().address,
          )
        ).json()
      ).data;
      for (const value of [
        code,
        precheck.install_code,
        precheck.precheck_token,
        activation.activation_id,
        activation.install_token,
        activation.install_code,
        server.server_id,
        server.agent_token,
      ]) {
        expect(value).toMatch(SHELL_SAFE_PATTERN);
      }
    }
  });

  it('the document states the guarantee, with its pattern, on each of those fields', () => {
    const schemas = (t.document.components?.schemas ?? {}) as Record<string, Schema>;
    const fields: [string, string][] = [
      ['PrecheckResult', 'install_code'],
      ['PrecheckResult', 'precheck_token'],
      ['Activation', 'activation_id'],
      ['Activation', 'install_token'],
      ['Activation', 'install_code'],
      ['RegisteredServer', 'server_id'],
      ['RegisteredServer', 'agent_token'],
      ['InstallStatus', 'activation_id'],
    ];
    for (const [schema, field] of fields) {
      const property = schemas[schema]?.properties?.[field];
      expect(property?.description, `${schema}.${field}`).toContain('[A-Za-z0-9._-]');
      expect(property?.pattern, `${schema}.${field}`).toMatch(/^\^/);
    }
  });
});
