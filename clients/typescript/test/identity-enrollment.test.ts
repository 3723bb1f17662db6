/**
 * Codeless enrollment through the TypeScript client (DESIGN §25): a code made with `trust` and a real OpenID
 * provider on loopback (oidc-provider, test/support/workload-issuers.ts) minting the machine's token. runInstall
 * enrols with `identity` and no install code anywhere; each identity refusal arrives as a SlowdnsApiError with
 * its status and code.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activations, installCodes } from '../../../src/db/schema.js';
import { otherMachine } from '../../../test/support/install-flow.js';
import { startProviderIssuer, WORKLOAD_AUDIENCE, type ProviderIssuer } from '../../../test/support/workload-issuers.js';
import {
  createAdminClient,
  createClient,
  IdentityTokenSourceError,
  readIdentityToken,
  runInstall,
  type RunInstallOptions,
} from '../src/index.js';
import {
  address,
  apiError,
  harnessPerSuite,
  INSTALLER_VERSION,
  machine,
  transports,
  type ClientHarness,
} from './client-harness.js';

const ADMIN_TOKEN = 'operator-secret-0123456789abcdef0123456789';
const SUB = 'repo:example-org/dns-fleet:ref:refs/heads/main';
const CLAIMS = { repository: 'example-org/dns-fleet', repository_owner_id: '4242' };
const ENV = { ADMIN_TOKEN, IDENTITY_ISSUER_ALLOW_HTTP: 'true', IDENTITY_ISSUER_ALLOW_PRIVATE: 'true' };

let issuer: ProviderIssuer;
let folder: string;
beforeAll(async () => {
  issuer = await startProviderIssuer();
  folder = await mkdtemp(join(tmpdir(), 'slowdns-identity-'));
});
afterAll(async () => {
  await issuer.close();
  await rm(folder, { recursive: true, force: true });
});

/** The admin client and a client without retries, on the harness's transport. */
const adminOf = (h: ClientHarness) =>
  createAdminClient({ baseUrl: h.baseUrl, token: ADMIN_TOKEN, fetch: (r) => h.fetch(new URL(r.url).pathname, r) });
const clientWithoutRetries = (h: ClientHarness) =>
  createClient({ baseUrl: h.baseUrl, fetch: (r) => h.fetch(new URL(r.url).pathname, r), retry: 0 });

/** A code trusting the loopback provider for `example-org`'s main branch, owner 4242, tag `repo` from the claim. */
async function trustCode(h: ClientHarness): Promise<string> {
  const { data, error } = await adminOf(h).POST('/api/v2/admin/install-codes', {
    body: {
      uses: 5,
      ttl_seconds: 86_400,
      require_approval: false,
      tags: { env: 'ci' },
      trust: {
        issuer: issuer.issuer,
        audiences: [WORKLOAD_AUDIENCE],
        subject_pattern: 'repo:example-org/*:ref:refs/heads/main',
        claims: { repository_owner_id: '4242' },
        tags_from_claims: { repo: 'repository' },
        max_lifetime_seconds: 3600,
      },
    },
  });
  expect(error).toBeUndefined();
  expect(data!.data.install_code).toBeNull();
  return data!.data.install_code_id;
}

const identityPrecheckBody = (installCodeId: string, token: string, onMachine = machine) => ({
  install_code_id: installCodeId,
  identity_token: token,
  ...onMachine,
  product: 'slowdns' as const,
  installer_version: INSTALLER_VERSION,
});

describe.each(transports)('runInstall with a workload identity, %s', (_name, transport) => {
  let h: ClientHarness;
  harnessPerSuite(
    (env) => transport({ ...ENV, ...env }),
    (opened) => {
      h = opened;
    },
  );
  // The provider signs with the real time: the service's clock starts there.
  beforeEach(() => h.t.clock.set(new Date()));

  const options = (overrides: Partial<RunInstallOptions>): RunInstallOptions => ({
    client: h.client,
    machine,
    installerVersion: INSTALLER_VERSION,
    requestedRef: 'main',
    confirmAddress: async () => address,
    install: async () => {},
    signals: [],
    ...overrides,
  });

  it('enrols from a token file with no install code anywhere: confirmed, the tags from claims on the activation', async () => {
    const installCodeId = await trustCode(h);
    const tokenFile = join(folder, `token-${crypto.randomUUID()}`);
    await writeFile(tokenFile, `${await issuer.mint(SUB, CLAIMS)}\n`);
    const result = await runInstall(options({ identity: { installCodeId, tokenFile } }));
    expect(result).toMatchObject({
      outcome: 'confirmed',
      precheck: { install_code_id: installCodeId, identity: { iss: issuer.issuer, sub: SUB } },
      activation: { install_code_id: installCodeId },
      confirmation: { status: 'confirmed' },
    });
    if (result.outcome !== 'confirmed' || !('precheck' in result)) throw new Error('not a fresh confirmed run');
    expect(result.precheck.install_code).toBeUndefined();
    expect(result.activation.install_code).toBeUndefined();
    const [row] = await h.t.database.db
      .select()
      .from(activations)
      .where(eq(activations.id, result.activation.activation_id));
    expect(row!.tags).toEqual({ env: 'ci', repo: 'example-org/dns-fleet' });
  });

  it('asks token() at each precheck: a second machine gets a fresh token, its own activation', async () => {
    const installCodeId = await trustCode(h);
    let asked = 0;
    const token = async () => {
      asked += 1;
      return issuer.mint(SUB, CLAIMS);
    };
    const first = await runInstall(options({ identity: { installCodeId, token } }));
    const second = await runInstall(options({ identity: { installCodeId, token }, machine: otherMachine }));
    expect([first.outcome, second.outcome]).toEqual(['confirmed', 'confirmed']);
    expect(asked).toBe(2);
    expect(await h.t.database.db.select().from(activations)).toHaveLength(2);
  });
});

describe('the identity refusals through the client', () => {
  let h: ClientHarness;
  harnessPerSuite(
    (env) => transports[0]![1]({ ...ENV, ...env }),
    (opened) => {
      h = opened;
    },
  );
  beforeEach(() => h.t.clock.set(new Date()));

  it('a token for another audience is 401 identity_token_invalid', async () => {
    const id = await trustCode(h);
    const token = await issuer.mint(SUB, CLAIMS, 'https://elsewhere.example.net');
    await apiError(h.client.precheck(identityPrecheckBody(id, token)), 401, 'identity_token_invalid');
  });

  it('a claim outside the rules is 403 identity_not_allowed, and runInstall fails at precheck with nothing to release', async () => {
    const id = await trustCode(h);
    const token = await issuer.mint(SUB, { ...CLAIMS, repository_owner_id: '9999' });
    await apiError(h.client.precheck(identityPrecheckBody(id, token)), 403, 'identity_not_allowed');
    const result = await runInstall({
      client: h.client,
      identity: { installCodeId: id, token: () => token },
      machine,
      installerVersion: INSTALLER_VERSION,
      requestedRef: 'main',
      confirmAddress: async () => address,
      install: async () => expect.fail('the install step never runs'),
      signals: [],
    });
    expect(result).toMatchObject({ outcome: 'failed', stage: 'precheck', error: { code: 'identity_not_allowed' } });
    expect(result).not.toHaveProperty('release');
  });

  it('the same token from another machine is 401 identity_token_replayed', async () => {
    const id = await trustCode(h);
    const token = await issuer.mint(SUB, CLAIMS);
    await h.client.precheck(identityPrecheckBody(id, token));
    await apiError(h.client.precheck(identityPrecheckBody(id, token, otherMachine)), 401, 'identity_token_replayed');
  });

  it('the code form on a code with trust is 403 identity_token_required', async () => {
    // A fleet code with a secret, given a trust block afterwards: the only way its code form can be tried.
    const { data } = await adminOf(h).POST('/api/v2/admin/install-codes', {
      body: { uses: 2, require_approval: false },
    });
    const trust = {
      issuer: issuer.issuer,
      audiences: [WORKLOAD_AUDIENCE],
      subject_pattern: SUB,
      max_lifetime_seconds: 3600,
    };
    await h.t.database.db.update(installCodes).set({ trust }).where(eq(installCodes.id, data!.data.install_code_id));
    await apiError(
      h.client.precheck({
        install_code: data!.data.install_code!,
        ...machine,
        product: 'slowdns',
        installer_version: INSTALLER_VERSION,
      }),
      403,
      'identity_token_required',
    );
  });

  it('an issuer that does not answer, with no key cached, is 503 identity_issuer_unavailable with Retry-After', async () => {
    const down = await startProviderIssuer();
    try {
      const { data } = await adminOf(h).POST('/api/v2/admin/install-codes', {
        body: {
          uses: 1,
          require_approval: false,
          trust: {
            issuer: down.issuer,
            audiences: [WORKLOAD_AUDIENCE],
            subject_pattern: SUB,
            max_lifetime_seconds: 3600,
          },
        },
      });
      const token = await down.mint(SUB, CLAIMS);
      down.down(true);
      // No retry: the client would otherwise wait out the Retry-After and ask again.
      const error = await apiError(
        clientWithoutRetries(h).precheck(identityPrecheckBody(data!.data.install_code_id, token)),
        503,
        'identity_issuer_unavailable',
      );
      expect(error.retryAfterSeconds).toBeGreaterThan(0);
    } finally {
      await down.close();
    }
  });
});

describe('readIdentityToken', () => {
  it('reads the file again at each call, trimmed, and refuses what is not a JWT without printing it', async () => {
    const tokenFile = join(folder, 'rotating');
    await writeFile(tokenFile, 'aaa.bbb.ccc\n');
    expect(await readIdentityToken({ installCodeId: 'ic_0123456789abcdef', tokenFile })).toBe('aaa.bbb.ccc');
    await writeFile(tokenFile, 'ddd.eee.fff');
    expect(await readIdentityToken({ installCodeId: 'ic_0123456789abcdef', tokenFile })).toBe('ddd.eee.fff');
    await writeFile(tokenFile, 'secret words');
    const refused = await readIdentityToken({ installCodeId: 'ic_0123456789abcdef', tokenFile }).catch((e) => e);
    expect(refused).toBeInstanceOf(IdentityTokenSourceError);
    expect(refused.message).not.toContain('secret');
    await expect(
      readIdentityToken({ installCodeId: 'ic_0123456789abcdef', tokenFile: join(folder, 'missing') }),
    ).rejects.toThrow(/cannot read the identity token file .*missing \(ENOENT\)/);
  });
});
