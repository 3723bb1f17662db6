import { describe, expect, it } from 'vitest';
import { servers } from '../../src/db/schema.js';
import { adminList } from '../admin/admin-requests.js';
import { AGENT_VERSION, registerRequest } from '../legacy/agent-requests.js';
import { activateRequest, confirmRequest, randomMachine } from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, createCode, createCodeRequest, enroll, fleetPrecheck } from './fleet-requests.js';

describe('fleet codes: networks, host names, limits and tags (DESIGN §22)', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('10 machines behind one address inside allowed_cidrs enroll on one code, while the seed limits the sixth activation from an address bound to nothing', async () => {
    const { install_code: fleet } = await createCode(t, { uses: 20, allowed_cidrs: ['198.51.100.0/24'] });
    const inside = [];
    for (let i = 0; i < 10; i++) inside.push(await enroll(t, fleet, { address: '198.51.100.7' }));
    expect(inside.map((e) => e.status)).toEqual(Array(10).fill(200));
    const { install_code: open } = await createCode(t, { uses: 10 });
    const outside = [];
    for (let i = 0; i < 6; i++) outside.push(await enroll(t, open, { address: '203.0.113.50' }));
    expect(outside.map((e) => e.status)).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('an address outside allowed_cidrs is refused at precheck and at activate with 403 install_code_address_not_allowed', async () => {
    const { install_code: code } = await createCode(t, {
      uses: 5,
      allowed_cidrs: ['198.51.100.0/24', '2001:db8::/48'],
    });
    expect(await enroll(t, code, { address: '203.0.113.9' })).toMatchObject({
      status: 403,
      code: 'install_code_address_not_allowed',
    });
    expect((await enroll(t, code, { address: '2001:db8::5' })).status).toBe(200);
    // A token got inside does not carry an install outside.
    const machine = randomMachine();
    const pre = await fleetPrecheck(t, code, machine, '198.51.100.3');
    const token = (await pre.json()).data.precheck_token;
    const res = await activateRequest(t, code, token, { ...machine, hostname: 'x.example.com' }, '203.0.113.9');
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('install_code_address_not_allowed');
  });

  it('a host name outside hostname_pattern is refused at activate with 403 install_code_hostname_not_allowed', async () => {
    const { install_code: code } = await createCode(t, { uses: 5, hostname_pattern: '*.prod.example.com' });
    expect((await enroll(t, code, { address: '198.51.100.1', hostname: 'DB1.Prod.Example.com' })).status).toBe(200);
    for (const hostname of ['a.b.prod.example.com', 'prod.example.com', 'db1.staging.example.com'])
      expect(await enroll(t, code, { address: '198.51.100.2', hostname })).toMatchObject({
        status: 403,
        code: 'install_code_hostname_not_allowed',
      });
  });

  it('tags go onto the activation and the server and filter the lists', async () => {
    const { install_code: code, install_code_id: id } = await createCode(t, {
      uses: 2,
      tags: { env: 'prod', role: 'dns' },
    });
    await createCode(t, { uses: 2, tags: { env: 'staging' } });
    const e = await enroll(t, code, { address: '198.51.100.1' });
    const reg = await registerRequest(t, {
      activation_id: e.activationId,
      install_token: e.installToken,
      agent_version: AGENT_VERSION,
    });
    expect(reg.status).toBe(201);
    expect((await confirmRequest(t, e.activationId!, e.installToken!)).status).toBe(200);
    const [server] = await t.database.db.select().from(servers);
    expect(server!.tags).toEqual({ env: 'prod', role: 'dns' });
    const codes = await adminList(t, 'install-codes', { tag: 'env:prod' });
    expect(codes.items.map((c) => c.install_code_id)).toEqual([id]);
    expect((await adminList(t, 'activations', { tag: 'role:dns' })).items.map((a) => a.tags)).toEqual([
      { env: 'prod', role: 'dns' },
    ]);
    expect((await adminList(t, 'servers', { tag: 'env:prod' })).items).toHaveLength(1);
    expect((await adminList(t, 'servers', { tag: 'env:staging' })).items).toHaveLength(0);
    const listed = async (query: string) => {
      const res = await t.request(`/api/v2/admin/servers?${query}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      return (await res.json()).data.items.length;
    };
    expect(await listed('tag=env:prod&tag=role:dns')).toBe(1);
    // key=value, as the command and the console write tags, is the same filter.
    expect(await listed('tag=env=prod&tag=role=dns')).toBe(1);
    expect(await listed('tag=env=prod&tag=role:web')).toBe(0);
    expect(await listed('tag=env:prod&tag=role:web')).toBe(0);
    // One key asked with two values: no item holds both (the last one does not win).
    expect(await listed('tag=env:staging&tag=env:prod')).toBe(0);
  });

  it('a read token cannot create a code: 403 admin_scope_insufficient', async () => {
    const mint = await t.request('/api/v2/admin/tokens', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'dashboard', scope: 'read' }),
    });
    const { token } = (await mint.json()).data;
    const res = await createCodeRequest(t, { uses: 2 }, token);
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('admin_scope_insufficient');
  });

  it('a reusable code bound to nothing comes with a warning, one bound to networks without', async () => {
    expect((await createCode(t, { uses: 50 })).warnings).toHaveLength(1);
    expect((await createCode(t, { uses: 50, allowed_cidrs: ['198.51.100.0/24'] })).warnings).toEqual([]);
    expect((await createCode(t, { uses: 50, require_approval: true })).warnings).toEqual([]);
  });

  it.each([
    ['uses', { uses: 0 }],
    ['uses', { uses: 10_001 }],
    ['ttl_seconds', { ttl_seconds: 299 }],
    ['ttl_seconds', { ttl_seconds: 2_592_001 }],
    ['tags', { tags: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }],
    ['tags', { tags: { Env: 'prod' } }],
    ['tags', { tags: { 'e\u0001nv': 'prod' } }],
    ['tags', { tags: { env: 'prod\u202e' } }],
    ['tags', { tags: { env: 'pr\u200bod' } }],
    ['tags', { tags: { env: '\ufeffprod' } }],
    ['tags', { tags: { env: 'a\u2066b\u2069' } }],
    ['allowed_cidrs', { allowed_cidrs: ['198.51.100.1/24'] }],
    ['allowed_cidrs', { allowed_cidrs: ['10.0.0.0/7'] }],
    ['allowed_cidrs', { allowed_cidrs: ['2001:db8::/31'] }],
    ['hostname_pattern', { hostname_pattern: 'db*.example.com' }],
    ['hostname_pattern', { hostname_pattern: 'a.*.example.com' }],
    ['hostname_pattern', { hostname_pattern: 'Upper.example.com' }],
  ])('a bad %s is 400 validation_failed naming it (%j)', async (field, body) => {
    const res = await createCodeRequest(t, body);
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain(field);
  });

  it('a tag key refused says what a key must be, in words, not "Invalid key in record"', async () => {
    const { error } = await (await createCodeRequest(t, { uses: 2, tags: { Env: 'prod' } })).json();
    expect(error.message).toContain('tags.Env: is not a tag key: a key must be 1 to 32 characters of a-z, 0-9');
    expect(error.message).not.toContain('Invalid key in record');
  });

  it('a tag named __proto__ is 400 validation_failed naming it, not silently dropped', async () => {
    const res = await t.request('/api/v2/admin/install-codes', {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{"uses": 2, "tags": {"env": "prod", "__proto__": "x"}}',
    });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain('tags');
  });
});
