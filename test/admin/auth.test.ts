import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/test-app.js';
import { adminOperations } from './admin-operations.js';
import { ADMIN_TOKEN } from './admin-requests.js';

/** Tokens that are not ADMIN_TOKEN: another one, a prefix of it, and the right one sent other than as a Bearer. */
const wrongAuthorizations: Record<string, string>[] = [
  {},
  { authorization: `Bearer ${ADMIN_TOKEN}x` },
  { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` },
  { authorization: ADMIN_TOKEN },
  { authorization: `Basic ${ADMIN_TOKEN}` },
];

describe('the admin API asks for ADMIN_TOKEN', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('every admin route the app serves is an operation of the document', () => {
    const served = new Set(
      t.app.routes
        .filter((r) => r.path.startsWith('/api/v2/admin/') && r.method !== 'ALL')
        .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`),
    );
    const documented = adminOperations(t.document).map((op) => `${op.method} ${op.template}`);
    expect(documented.length).toBeGreaterThanOrEqual(26);
    expect([...served].sort()).toEqual([...documented].sort());
  });

  it('every admin operation carries the admin tag and the adminToken scheme naming one scope', () => {
    const paths = t.document.paths as Record<string, Record<string, { tags: string[]; security: unknown }>>;
    for (const op of adminOperations(t.document))
      expect({ op: op.operationId, ...paths[op.template]![op.method.toLowerCase()] }).toMatchObject({
        op: op.operationId,
        tags: ['admin'],
        security: [{ adminToken: [expect.stringMatching(/^(read|write|root)$/)] }],
      });
  });

  it('every admin operation is 401 admin_token_invalid without the token, with another one, or with an agent-style token', async () => {
    const answers: string[] = [];
    for (const { method, path } of adminOperations(t.document))
      for (const headers of wrongAuthorizations) {
        const res = await t.request(`${path}?limit=oops`, { method, headers });
        answers.push(
          `${method} ${path} ${headers.authorization ?? 'none'}: ${res.status} ${(await res.json()).error.code}`,
        );
      }
    expect(answers.filter((a) => !a.endsWith(': 401 admin_token_invalid'))).toEqual([]);
    expect(answers.length).toBe(adminOperations(t.document).length * wrongAuthorizations.length);
  });

  it("every admin operation's 401 names the realm in its Bearer challenge", async () => {
    const challenges: string[] = [];
    for (const { method, path } of adminOperations(t.document))
      for (const headers of wrongAuthorizations) {
        const res = await t.request(path, { method, headers });
        challenges.push(`${method} ${path} ${headers.authorization ?? 'none'}: ${res.headers.get('www-authenticate')}`);
      }
    expect(challenges.filter((c) => !/: Bearer realm="slowdns-operator"/.test(c))).toEqual([]);
    expect(challenges.length).toBe(adminOperations(t.document).length * wrongAuthorizations.length);
  });

  it('the token is checked before the input: a bad query without it is 401, with it 400', async () => {
    expect((await t.request('/api/v2/admin/events?limit=500')).status).toBe(401);
    const res = await t.request('/api/v2/admin/events?limit=500', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toEqual({ code: 'validation_failed', message: expect.stringContaining('limit') });
  });
});

describe('without ADMIN_TOKEN the admin API is disabled', () => {
  const t = useTestApp();

  it('every admin operation is 403 admin_api_disabled, whatever token comes', async () => {
    const answers: string[] = [];
    for (const { method, path } of adminOperations(t.document))
      for (const headers of [{} as Record<string, string>, { authorization: `Bearer ${ADMIN_TOKEN}` }]) {
        const res = await t.request(path, { method, headers });
        answers.push(
          `${method} ${path} ${headers.authorization ? 'token' : 'none'}: ${res.status} ${(await res.json()).error.code}`,
        );
      }
    expect(answers.filter((a) => !a.endsWith(': 403 admin_api_disabled'))).toEqual([]);
    expect(answers.length).toBe(adminOperations(t.document).length * 2);
  });
});
