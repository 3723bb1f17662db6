import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activations, events, identityTokenUses, installCodes } from '../../src/db/schema.js';
import { ADMIN_TOKEN, createCodeRequest, fleetPrecheck, showCode } from '../fleet-codes/fleet-requests.js';
import { confirmRequest, expectError, randomMachine } from '../support/install-flow.js';
import { postJson, useTestApp } from '../support/test-app.js';
import { startProviderIssuer, WORKLOAD_AUDIENCE, type ProviderIssuer } from '../support/workload-issuers.js';
import { identityActivate, identityEnroll, identityPrecheck, trustCode } from './identity-requests.js';

const GOOD_SUB = 'repo:example-org/dns-fleet:ref:refs/heads/main';
const OWNER = { repository: 'example-org/dns-fleet', repository_owner_id: '4242' };

describe('codeless enrollment with a real OpenID provider on loopback (DESIGN §25)', () => {
  let issuer: ProviderIssuer;
  beforeAll(async () => {
    issuer = await startProviderIssuer();
  });
  afterAll(() => issuer.close());
  const t = useTestApp({ ADMIN_TOKEN, IDENTITY_ISSUER_ALLOW_HTTP: 'true', IDENTITY_ISSUER_ALLOW_PRIVATE: 'true' });
  // The provider signs with the real time: the service's clock starts there.
  beforeEach(() => t.clock.set(new Date()));

  it('a trust code is created without a usable secret and shows its trust block', async () => {
    const code = await trustCode(t, issuer.issuer, {
      trust: { claims: { repository_owner_id: '4242' }, tags_from_claims: { repo: 'repository' } },
    });
    expect(code.install_code).toBeNull();
    expect(code.trust).toMatchObject({
      issuer: issuer.issuer,
      max_lifetime_seconds: 3600,
      tags_from_claims: { repo: 'repository' },
    });
    const shown = await showCode(t, code.install_code_id);
    expect(shown.trust).toMatchObject({ issuer: issuer.issuer, audiences: [WORKLOAD_AUDIENCE] });
  });

  it('a machine with the right token enrolls with no install code, tags from claims and its identity in the events', async () => {
    const code = await trustCode(t, issuer.issuer, {
      tags: { env: 'ci' },
      trust: { claims: { repository_owner_id: '4242' }, tags_from_claims: { repo: 'repository' } },
    });
    const res = await identityEnroll(t, code.install_code_id, await issuer.mint(GOOD_SUB, OWNER));
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.install_code).toBeUndefined();
    expect(data.install_code_id).toBe(code.install_code_id);
    expect((await confirmRequest(t, data.activation_id, data.install_token)).status).toBe(200);
    const [row] = await t.database.db.select().from(activations).where(eq(activations.id, data.activation_id));
    expect(row!.tags).toEqual({ env: 'ci', repo: 'example-org/dns-fleet' });
    const created = await t.database.db.select().from(events).where(eq(events.activationId, data.activation_id));
    const event = created.find((e) => e.type === 'activation.created')!;
    expect(event.data).toMatchObject({
      identity: { iss: issuer.issuer, sub: GOOD_SUB },
      tags: { repo: 'example-org/dns-fleet' },
    });
    expect(JSON.stringify(created)).not.toContain('eyJ');
  });

  it('a token for another audience is 401 identity_token_invalid', async () => {
    const code = await trustCode(t, issuer.issuer);
    const token = await issuer.mint(GOOD_SUB, OWNER, 'https://elsewhere.example.net');
    await expectError(
      await identityPrecheck(t, code.install_code_id, token, randomMachine()),
      401,
      'identity_token_invalid',
    );
  });

  it('a claim that breaks a rule is 403 identity_not_allowed, the rule named in the event only', async () => {
    const code = await trustCode(t, issuer.issuer, { trust: { claims: { repository_owner_id: '4242' } } });
    const token = await issuer.mint(GOOD_SUB, { ...OWNER, repository_owner_id: '9999' });
    const res = await identityPrecheck(t, code.install_code_id, token, randomMachine());
    const body = await res.json();
    expect(res.status).toBe(403);
    expect(body.error.code).toBe('identity_not_allowed');
    expect(JSON.stringify(body)).not.toContain('repository_owner_id');
    const [refused] = await t.database.db.select().from(events).where(eq(events.type, 'install_code.identity_refused'));
    expect(refused!.data).toMatchObject({
      check: 'claims.repository_owner_id',
      identity: { iss: issuer.issuer, sub: GOOD_SUB },
    });
  });

  it('the same token from the same machine answers again and from another machine is 401 identity_token_replayed', async () => {
    const code = await trustCode(t, issuer.issuer);
    const token = await issuer.mint(GOOD_SUB, OWNER);
    const machine = randomMachine();
    expect((await identityPrecheck(t, code.install_code_id, token, machine)).status).toBe(200);
    const again = await identityPrecheck(t, code.install_code_id, token, machine);
    expect(again.status).toBe(200);
    await expectError(
      await identityPrecheck(t, code.install_code_id, token, randomMachine()),
      401,
      'identity_token_replayed',
    );
    expect(await t.database.db.select().from(identityTokenUses)).toHaveLength(1);
  });

  it('one token makes at most one activation, whatever number of prechecks it repeats', async () => {
    const code = await trustCode(t, issuer.issuer);
    const token = await issuer.mint(GOOD_SUB, OWNER);
    const machine = randomMachine();
    const first = (await (await identityPrecheck(t, code.install_code_id, token, machine)).json()).data.precheck_token;
    const second = (await (await identityPrecheck(t, code.install_code_id, token, machine)).json()).data.precheck_token;
    expect((await identityActivate(t, code.install_code_id, first, machine)).status).toBe(200);
    const other = await identityActivate(t, code.install_code_id, second, machine);
    expect(await t.database.db.select().from(activations)).toHaveLength(1);
    expect([200, 401]).toContain(other.status);
  });

  it('the code form on a trust code is 403 identity_token_required', async () => {
    const plain = await (await createCodeRequest(t, { uses: 5, allowed_cidrs: ['203.0.113.0/24'] })).json();
    const trust = {
      issuer: issuer.issuer,
      audiences: [WORKLOAD_AUDIENCE],
      subject_pattern: GOOD_SUB,
      max_lifetime_seconds: 3600,
    };
    await t.database.db.update(installCodes).set({ trust }).where(eq(installCodes.id, plain.data.install_code_id));
    await expectError(
      await fleetPrecheck(t, plain.data.install_code, randomMachine(), '203.0.113.5'),
      403,
      'identity_token_required',
    );
  });

  it('activate by code id with a precheck token of the code form is 401 precheck_token_invalid', async () => {
    const code = await trustCode(t, issuer.issuer);
    const plain = await (await createCodeRequest(t, { uses: 5, allowed_cidrs: ['203.0.113.0/24'] })).json();
    const machine = randomMachine();
    const pre = await fleetPrecheck(t, plain.data.install_code, machine, '203.0.113.5');
    const token = (await pre.json()).data.precheck_token;
    await expectError(
      await identityActivate(t, code.install_code_id, token, machine, '203.0.113.5'),
      401,
      'precheck_token_invalid',
    );
  });

  it('a body with both forms or half a form is 400 validation_failed naming the fields', async () => {
    const code = await trustCode(t, issuer.issuer);
    const token = await issuer.mint(GOOD_SUB, OWNER);
    const both = await t.request(
      '/api/v2/slowdns/install/precheck',
      postJson({
        install_code: 'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N',
        install_code_id: code.install_code_id,
        identity_token: token,
        ...randomMachine(),
        product: 'slowdns',
        installer_version: '2026.11.20.1',
      }),
    );
    expect(both.status).toBe(400);
    expect((await both.json()).error.message).toContain('install_code');
    const half = await t.request(
      '/api/v2/slowdns/install/precheck',
      postJson({
        install_code_id: code.install_code_id,
        ...randomMachine(),
        product: 'slowdns',
        installer_version: '2026.11.20.1',
      }),
    );
    expect(half.status).toBe(400);
    expect((await half.json()).error.message).toContain('identity_token');
  });

  it('a 100 KB token is refused before it is read with 413 payload_too_large', async () => {
    const code = await trustCode(t, issuer.issuer);
    const huge = `${'a'.repeat(50_000)}.${'b'.repeat(50_000)}.c`;
    await expectError(await identityPrecheck(t, code.install_code_id, huge, randomMachine()), 413, 'payload_too_large');
  });

  it('a trust block with no literal rule is 400 at creation', async () => {
    const res = await createCodeRequest(t, {
      uses: 5,
      trust: { issuer: issuer.issuer, audiences: [WORKLOAD_AUDIENCE], subject_pattern: 'repo:*/*:*' },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('trust.subject_pattern');
  });

  it('an issuer pointing at a metadata address is refused at creation', async () => {
    const res = await createCodeRequest(t, {
      uses: 5,
      trust: { issuer: 'http://169.254.169.254', audiences: [WORKLOAD_AUDIENCE], subject_pattern: GOOD_SUB },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('trust.issuer');
  });

  it('a tag both fixed and taken from a claim is 400 at creation', async () => {
    const res = await createCodeRequest(t, {
      uses: 5,
      tags: { repo: 'fixed' },
      trust: {
        issuer: issuer.issuer,
        audiences: [WORKLOAD_AUDIENCE],
        subject_pattern: GOOD_SUB,
        tags_from_claims: { repo: 'repository' },
      },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('trust.tags_from_claims.repo');
  });

  it('explain answers which rule failed and records nothing', async () => {
    const code = await trustCode(t, issuer.issuer, { trust: { claims: { repository_owner_id: '4242' } } });
    const token = await issuer.mint(GOOD_SUB, { ...OWNER, repository_owner_id: '1' });
    const before = (await t.database.db.select().from(events)).length;
    const res = await t.request(
      `/api/v2/admin/install-codes/${code.install_code_id}/trust/explain`,
      postJson({ identity_token: token }, { authorization: `Bearer ${ADMIN_TOKEN}` }),
    );
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.verdict).toBe('identity_not_allowed');
    expect(data.checks).toContainEqual({ check: 'claims.repository_owner_id', passed: false, detail: 'no match' });
    expect(data.checks).toContainEqual({ check: 'subject_pattern', passed: true });
    expect((await t.database.db.select().from(events)).length).toBe(before);
  });

  it('uses hold under 50 concurrent identity prechecks and activates', async () => {
    const code = await trustCode(t, issuer.issuer, { uses: 7 });
    const tokens = await Promise.all(Array.from({ length: 50 }, () => issuer.mint(GOOD_SUB, OWNER)));
    const answers = await Promise.all(tokens.map((token) => identityEnroll(t, code.install_code_id, token)));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(7);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(await t.database.db.select().from(activations)).toHaveLength(7);
  });
});
