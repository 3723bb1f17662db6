import { eq, isNotNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, installCodePrechecks, installCodes } from '../../src/db/schema.js';
import { registerRequest } from '../legacy/agent-requests.js';
import {
  activateRequest,
  freshClient,
  INSTALLER_VERSION,
  precheckRequest,
  randomMachine,
} from '../support/install-flow.js';
import { postJson, useTestApp, type TestApp } from '../support/test-app.js';
import { ADMIN_TOKEN, consolePage, formTokenOf, mintToken, postForm, signIn } from './console-support.js';

/** The create form of a session: its form token and its single-use create token. */
async function createForm(t: TestApp, cookie: string): Promise<{ form_token: string; create_token: string }> {
  const { status, html } = await consolePage(t, '/admin/codes/new', cookie);
  expect(status).toBe(200);
  const createToken = /name="create_token" value="([A-Za-z0-9_-]{20,})"/.exec(html)?.[1];
  expect(createToken).toBeDefined();
  return { form_token: await formTokenOf(t, cookie), create_token: createToken! };
}

const fleetFields = {
  uses: '3',
  ttl_seconds: '604800',
  description: 'prod db fleet',
  tags: 'env=prod\nteam=db',
  allowed_cidrs: '203.0.113.0/24',
  hostname_pattern: '*.prod.example.com',
  reason: 'CHG-1234',
};

const fleetCodes = (t: TestApp) => t.database.db.select().from(installCodes).where(isNotNull(installCodes.operator));

/** A code for a fleet made through the admin API, as `slowdns codes create` makes it. */
async function apiCode(t: TestApp, body: Record<string, unknown>): Promise<{ code: string; id: string }> {
  const res = await t.request(
    '/api/v2/admin/install-codes',
    postJson(body, { authorization: `Bearer ${ADMIN_TOKEN}` }),
  );
  expect(res.status).toBe(201);
  const { data } = await res.json();
  return { code: data.install_code, id: data.install_code_id };
}

describe('the console makes and shows codes for fleets (DESIGN §22)', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('creates a code from the form of a write-scope session and shows it once, in the answer only', async () => {
    const cookie = await signIn(t, ADMIN_TOKEN);
    const res = await postForm(t, '/admin/codes', { ...fleetFields, ...(await createForm(t, cookie)) }, { cookie });
    const html = await res.text();
    expect(res.status).toBe(200);
    const code = /<code class="secret" id="created-code">(SDNS-[A-Z0-9-]+)<\/code>/.exec(html)?.[1];
    expect(code).toBeDefined();
    expect(html).toContain('it is not shown again');
    const [row] = await fleetCodes(t);
    expect(row).toMatchObject({
      uses: 3,
      operator: 'root',
      description: 'prod db fleet',
      tags: { env: 'prod', team: 'db' },
      allowedCidrs: ['203.0.113.0/24'],
      hostnamePattern: '*.prod.example.com',
    });
    for (const path of ['/admin/codes', `/admin/codes/${row!.id}`])
      expect((await consolePage(t, path, cookie)).html).not.toContain(code!);
  });

  it('makes one code of a create form sent twice: the second answer says nothing new was made', async () => {
    const cookie = await signIn(t, ADMIN_TOKEN);
    const fields = { ...fleetFields, ...(await createForm(t, cookie)) };
    expect((await postForm(t, '/admin/codes', fields, { cookie })).status).toBe(200);
    const again = await postForm(t, '/admin/codes', fields, { cookie });
    expect(again.status).toBe(409);
    const html = await again.text();
    expect(html).toContain('Nothing new was made');
    expect(html).not.toMatch(/SDNS-[A-Z0-9]{6}-/);
    expect(await fleetCodes(t)).toHaveLength(1);
  });

  it('answers a bad field with the form again, naming it (400), and makes nothing', async () => {
    const cookie = await signIn(t, ADMIN_TOKEN);
    for (const bad of [
      { uses: '0' },
      { tags: 'ENV=prod' },
      { allowed_cidrs: '203.0.113.7/24' },
      { hostname_pattern: 'a.*.example.com' },
    ]) {
      const res = await postForm(
        t,
        '/admin/codes',
        { ...fleetFields, ...bad, ...(await createForm(t, cookie)) },
        { cookie },
      );
      const html = await res.text();
      expect({ bad, status: res.status, form: html.includes('name="create_token"') }).toEqual({
        bad,
        status: 400,
        form: true,
      });
      expect(html).toContain(Object.keys(bad)[0]!);
    }
    expect(await fleetCodes(t)).toHaveLength(0);
  });

  it('gives a read-scope session no create form and refuses its forged POST', async () => {
    const { token } = await mintToken(t, 'auditor', 'read');
    const cookie = await signIn(t, token);
    expect((await consolePage(t, '/admin/codes/new', cookie)).status).toBe(403);
    const res = await postForm(
      t,
      '/admin/codes',
      { ...fleetFields, form_token: await formTokenOf(t, cookie), create_token: 'a'.repeat(43) },
      { cookie },
    );
    expect(res.status).toBe(403);
    expect(await fleetCodes(t)).toHaveLength(0);
  });

  it('shows uses, uses held and tags on the codes list and the detail view, and the activations of the code', async () => {
    const cookie = await signIn(t, ADMIN_TOKEN);
    const { code, id } = await apiCode(t, { uses: 3, tags: { env: 'prod' }, description: 'edge fleet' });
    const onMachine = randomMachine();
    const { address } = freshClient();
    const precheck = await precheckRequest(t, code, onMachine, address);
    const token = (await precheck.json()).data.precheck_token;
    const activated = await activateRequest(t, code, token, { ...onMachine, hostname: 'edge1.example.net' }, address);
    expect(activated.status).toBe(200);
    const list = (await consolePage(t, '/admin/codes', cookie)).html;
    expect(list).toContain('0 / 3');
    expect(list).toContain('(1 held)');
    expect(list).toContain('env=prod');
    const detail = (await consolePage(t, `/admin/codes/${id}`, cookie)).html;
    expect(detail).toContain('3: 0 spent, 1 held, 2 free');
    expect(detail).toContain('edge fleet');
    expect(detail).toContain('Its activations, newest first');
    expect(detail).toContain('edge1.example.net');
  });

  it('shows the tags on the detail views of an activation and of its server', async () => {
    const cookie = await signIn(t, ADMIN_TOKEN);
    const { code } = await apiCode(t, { uses: 2, tags: { env: 'prod', role: 'dns' } });
    const onMachine = randomMachine();
    const { address } = freshClient();
    const token = (await (await precheckRequest(t, code, onMachine, address)).json()).data.precheck_token;
    const { data } = await (await activateRequest(t, code, token, onMachine, address)).json();
    const registered = await registerRequest(t, {
      activation_id: data.activation_id,
      install_token: data.install_token,
      agent_version: INSTALLER_VERSION,
    });
    expect(registered.status).toBe(201);
    const serverId = (await registered.json()).data.server_id;
    for (const path of [`/admin/activations/${data.activation_id}`, `/admin/servers/${serverId}`]) {
      const { html } = await consolePage(t, path, cookie);
      expect({ path, env: html.includes('env=prod'), role: html.includes('role=dns') }).toEqual({
        path,
        env: true,
        role: true,
      });
    }
  });

  it('approves one waiting machine and denies another from the detail view of a code that requires approval', async () => {
    const cookie = await signIn(t, ADMIN_TOKEN);
    const { code, id } = await apiCode(t, { uses: 2, require_approval: true, allowed_cidrs: ['198.51.100.0/24'] });
    for (const _ of [1, 2]) expect((await precheckRequest(t, code, randomMachine(), '198.51.100.9')).status).toBe(200);
    const detail = (await consolePage(t, `/admin/codes/${id}`, cookie)).html;
    expect(detail).toContain('Machines waiting for approval');
    const prechecks = await t.database.db
      .select()
      .from(installCodePrechecks)
      .where(eq(installCodePrechecks.installCodeId, id));
    expect(prechecks).toHaveLength(2);
    const formToken = await formTokenOf(t, cookie);
    const [first, second] = prechecks;
    for (const [precheck, decision] of [
      [first!, 'approve'],
      [second!, 'deny'],
    ] as const) {
      expect(detail).toContain(`/admin/codes/${id}/prechecks/${precheck.id}/${decision}`);
      const res = await postForm(
        t,
        `/admin/codes/${id}/prechecks/${precheck.id}/${decision}`,
        { form_token: formToken, reason: 'checked the ticket' },
        { cookie },
      );
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`/admin/codes/${id}?decided=${decision}`);
    }
    const decided = await t.database.db
      .select()
      .from(installCodePrechecks)
      .where(eq(installCodePrechecks.installCodeId, id));
    expect(Object.fromEntries(decided.map((p) => [p.id, p.decision]))).toEqual({
      [first!.id]: 'approved',
      [second!.id]: 'denied',
    });
    const [row] = await t.database.db.select().from(installCodes).where(eq(installCodes.id, id));
    expect(row!.status).toBe('issued');
    expect(await t.database.db.select().from(activations)).toHaveLength(0);
  });
});
