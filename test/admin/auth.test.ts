import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN } from './admin-requests.js';

const routes = [
  ['GET', '/api/v2/admin/install-codes'],
  ['POST', '/api/v2/admin/install-codes/ic_0000000000000000/revoke'],
  ['GET', '/api/v2/admin/activations'],
  ['GET', '/api/v2/admin/activations/act_0000000000000000'],
  ['GET', '/api/v2/admin/install-codes/ic_0000000000000000'],
  ['GET', '/api/v2/admin/servers/srv_0000000000000000'],
  ['POST', '/api/v2/admin/activations/act_0000000000000000/release'],
  ['GET', '/api/v2/admin/servers'],
  ['POST', '/api/v2/admin/servers/srv_0000000000000000/revoke'],
  ['GET', '/api/v2/admin/events'],
  ['POST', '/api/v2/admin/rate-limit-overrides'],
  ['GET', '/api/v2/admin/rate-limit-overrides'],
  ['DELETE', '/api/v2/admin/rate-limit-overrides/rlo_0000000000000000'],
  ['GET', '/api/v2/admin/rate-limit-usage'],
  ['GET', '/api/v2/admin/webhooks'],
  ['POST', '/api/v2/admin/webhooks'],
  ['GET', '/api/v2/admin/webhooks/wh_0000000000000000'],
  ['PATCH', '/api/v2/admin/webhooks/wh_0000000000000000'],
  ['DELETE', '/api/v2/admin/webhooks/wh_0000000000000000'],
  ['POST', '/api/v2/admin/webhooks/wh_0000000000000000/rotate-secret'],
  ['POST', '/api/v2/admin/webhooks/wh_0000000000000000/test'],
  ['GET', '/api/v2/admin/webhooks/wh_0000000000000000/deliveries'],
  ['POST', '/api/v2/admin/webhook-deliveries/whd_0000000000000000/replay'],
  ['POST', '/api/v2/admin/tokens'],
  ['GET', '/api/v2/admin/tokens'],
  ['DELETE', '/api/v2/admin/tokens/opt_0000000000000000'],
] as const;

describe('the admin API asks for ADMIN_TOKEN', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it.each(routes)(
    '%s %s: 401 admin_token_invalid without the token, with another one, or with an agent-style token; the challenge names the realm',
    async (method, path) => {
      for (const headers of [
        {} as Record<string, string>,
        { authorization: `Bearer ${ADMIN_TOKEN}x` },
        { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` },
        { authorization: ADMIN_TOKEN },
        { authorization: `Basic ${ADMIN_TOKEN}` },
      ]) {
        const res = await t.request(`${path}?limit=oops`, { method, headers });
        expect(res.status).toBe(401);
        expect((await res.json()).error.code).toBe('admin_token_invalid');
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="slowdns-operator"/);
      }
    },
  );

  it('the token is checked before the input: a bad query without it is 401, with it 400', async () => {
    expect((await t.request('/api/v2/admin/events?limit=500')).status).toBe(401);
    const res = await t.request('/api/v2/admin/events?limit=500', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toEqual({ code: 'validation_failed', message: expect.stringContaining('limit') });
  });

  it('every admin operation is in the document with the admin tag and the adminToken scheme', () => {
    const paths = t.document.paths as Record<
      string,
      Record<string, { tags: string[]; security: unknown; operationId: string }>
    >;
    const admin = Object.entries(paths).filter(([path]) => path.startsWith('/api/v2/admin/'));
    expect(admin.flatMap(([, ops]) => Object.values(ops).map((op) => op.operationId)).sort()).toEqual([
      'createOperatorToken',
      'createRateLimitOverride',
      'createWebhook',
      'getActivation',
      'getInstallCode',
      'getRateLimitUsage',
      'getServer',
      'getWebhook',
      'listActivations',
      'listEvents',
      'listInstallCodes',
      'listOperatorTokens',
      'listRateLimitOverrides',
      'listServers',
      'listWebhookDeliveries',
      'listWebhooks',
      'releaseActivation',
      'removeRateLimitOverride',
      'removeWebhook',
      'replayWebhookDelivery',
      'revokeInstallCode',
      'revokeOperatorToken',
      'revokeServerAsOperator',
      'rotateWebhookSecret',
      'testWebhook',
      'updateWebhook',
    ]);
    for (const [, ops] of admin)
      for (const op of Object.values(ops))
        expect(op).toMatchObject({
          tags: ['admin'],
          security: [{ adminToken: [expect.stringMatching(/^(read|write|root)$/)] }],
        });
  });
});

describe('without ADMIN_TOKEN the admin API is disabled', () => {
  const t = useTestApp();

  it.each(routes)('%s %s: 403 admin_api_disabled, whatever token comes', async (method, path) => {
    for (const headers of [{} as Record<string, string>, { authorization: `Bearer ${ADMIN_TOKEN}` }]) {
      const res = await t.request(path, { method, headers });
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe('admin_api_disabled');
    }
  });
});
