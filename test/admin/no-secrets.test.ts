import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import { bearer, checkinRequest } from '../legacy/agent-requests.js';
import { issue, newBrowser } from '../support/install-flow.js';
import { installCollectingSecrets } from '../support/install-secrets.js';
import { useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, adminAction, allPages } from './admin-requests.js';

describe('no secret in any admin answer', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('lists and actions after whole installs show no code, token, cookie or jti, nor the hash of one', async () => {
    const secrets: string[] = [ADMIN_TOKEN];
    const answers: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      const install = await installCollectingSecrets(t);
      expect((await checkinRequest(t, bearer(install.agentToken))).status).toBe(200);
      secrets.push(...install.secrets);
      if (i === 0) answers.push(await (await adminAction(t, `activations/${install.activationId}/release`)).json());
      else answers.push(await (await adminAction(t, `servers/${install.serverId}/revoke`)).json());
    }
    const spare = await issue(t, await newBrowser(t));
    secrets.push(spare.code);
    answers.push(await (await adminAction(t, `install-codes/${spare.id}/revoke`)).json());
    for (const list of ['install-codes', 'activations', 'servers', 'events'])
      answers.push(await allPages(t, list, { limit: 200 }));

    const text = JSON.stringify(answers);
    expect(text).toContain('install_code.issued');
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(sha256Hex(secret));
      expect(text).not.toContain(secret.replace(/-/g, '').slice(8));
    }
  });
});
