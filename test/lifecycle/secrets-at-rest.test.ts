import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activateRequest,
  confirmRequest,
  freshClient,
  issueRequest,
  openBrowserSession,
  precheckRequest,
  releaseRequest,
} from '../support/install-flow.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { dumpAllTables } from '../support/test-database.js';

describe('secrets are never stored or logged in plain text', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('no cookie, install code, precheck token or install token appears in any table or log line', async () => {
    const secrets: string[] = [];
    for (const finish of ['confirm', 'release'] as const) {
      const { address } = freshClient();
      const cookie = await openBrowserSession(t, address);
      secrets.push(cookie.split('=')[1]!);
      const { data: issued } = await (await issueRequest(t, cookie, address)).json();
      secrets.push(issued.install_code);
      const { data: pre } = await (await precheckRequest(t, issued.install_code)).json();
      secrets.push(pre.precheck_token);
      const { data: act } = await (await activateRequest(t, issued.install_code, pre.precheck_token)).json();
      secrets.push(act.install_token);
      if (finish === 'confirm')
        expect((await confirmRequest(t, act.activation_id, act.install_token)).status).toBe(200);
      else expect((await releaseRequest(t, act.activation_id)).status).toBe(200);
    }
    // Random-part of each code too, in case a code were stored without its prefix.
    secrets.push(...secrets.filter((s) => s.startsWith('SDNS-')).map((s) => s.slice(8).replace(/-/g, '')));

    const { tables, text: dump } = await dumpAllTables(t.database.db);
    expect(tables).toEqual(expect.arrayContaining(['install_codes', 'activations', 'browser_sessions']));
    const logs = t.logs.join('\n');
    expect(logs).toContain('"route":"/api/v2/slowdns/install/activate"');
    for (const secret of secrets) {
      expect(dump).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});
