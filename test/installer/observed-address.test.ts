import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateRequest, freshClient, issueCode, machine, precheckRequest } from '../support/install-flow.js';
import { buildTestApp, type TestApp, useTestApp } from '../support/test-app.js';

describe('the address the service sees', () => {
  const t = useTestApp();

  async function precheckFrom(app: TestApp, code: string, address: string, headers: Record<string, string> = {}) {
    const res = await app.request(
      '/api/v2/slowdns/install/precheck',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ install_code: code, ...machine, product: 'slowdns', installer_version: '2026.11.20.1' }),
      },
      address,
    );
    expect(res.status).toBe(200);
    return (await res.json()).data;
  }

  it('precheck answers observed_ip: the socket peer, IPv4-mapped addresses normalised', async () => {
    const code = await issueCode(t);
    expect((await precheckFrom(t, code, '::ffff:198.51.100.23')).observed_ip).toBe('198.51.100.23');
    expect((await precheckFrom(t, code, '2001:DB8::9')).observed_ip).toBe('2001:db8::9');
  });

  it('without TRUST_PROXY a forged X-Forwarded-For does not change observed_ip', async () => {
    const code = await issueCode(t);
    expect((await precheckFrom(t, code, '198.51.100.23', { 'x-forwarded-for': '6.6.6.6' })).observed_ip).toBe(
      '198.51.100.23',
    );
  });

  describe('behind a trusted proxy', () => {
    let proxied: TestApp;
    beforeAll(() => {
      proxied = buildTestApp(t.database, t.keys, { TRUST_PROXY: '1' }, t.clock);
    });
    afterAll(() => undefined);

    it('observed_ip is the X-Forwarded-For entry TRUST_PROXY believes', async () => {
      const code = await issueCode(t);
      expect(
        (await precheckFrom(proxied, code, '10.0.0.2', { 'x-forwarded-for': '6.6.6.6, 203.0.113.99' })).observed_ip,
      ).toBe('203.0.113.99');
    });
  });

  it('activate says whether the confirmed public_ip is the observed address, and never refuses for it', async () => {
    const code = await issueCode(t);
    const token = (await (await precheckRequest(t, code, {}, freshClient().address)).json()).data.precheck_token;
    const res = await activateRequest(t, code, token, { public_ip: '203.0.113.7' }, '192.0.2.44');
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({
      observed_ip: '192.0.2.44',
      public_ip_matches_observed: false,
      machine_binding: { public_ip: '203.0.113.7' },
    });

    const second = await issueCode(t);
    const secondToken = (await (await precheckRequest(t, second, {}, freshClient().address)).json()).data
      .precheck_token;
    const same = await activateRequest(t, second, secondToken, { public_ip: '2001:0DB8:0:0::7' }, '2001:db8::7');
    expect((await same.json()).data).toMatchObject({ observed_ip: '2001:db8::7', public_ip_matches_observed: true });
  });

  it('without a socket (in-process fetch) observed_ip is null and nothing matches it', async () => {
    const code = await issueCode(t);
    const res = await t.app.request('/api/v2/slowdns/install/precheck', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ install_code: code, ...machine, product: 'slowdns', installer_version: '2026.11.20.1' }),
    });
    expect((await res.json()).data.observed_ip).toBeNull();
  });
});
