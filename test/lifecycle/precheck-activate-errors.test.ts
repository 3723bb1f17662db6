import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, installCodes } from '../../src/db/schema.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import {
  activateRequest,
  activatedInstall,
  confirmRequest,
  expectRefusal,
  issueCode,
  otherMachine,
  precheckRequest,
  precheckToken,
} from '../support/install-flow.js';
import { buildTestApp, postJson, useTestApp } from '../support/test-app.js';

describe('precheck errors', () => {
  const t = useTestApp();

  it('names every missing field in validation_failed', async () => {
    const res = await t.request('/api/v2/slowdns/install/precheck', postJson({}));
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('validation_failed');
    for (const field of ['install_code', 'machine_id', 'ssh_fingerprint', 'product', 'installer_version'])
      expect(error.message).toContain(field);
  });

  it.each([
    ['install_code', 'SDNS-XX-123456-123456-123456'],
    ['install_code', 'SDNS-SD-12345U-123456-123456'],
    ['machine_id', 'ABCDEF0123456789ABCDEF0123456789'],
    ['machine_id', 'short'],
    ['ssh_fingerprint', 'MD5:aa:bb'],
    ['product', 'otherdns'],
    ['installer_version', '1.0'],
    ['installer_version', 7],
  ])('refuses a bad %s (%s) with 400 naming it', async (field, value) => {
    const code = await issueCode(t);
    const res = await precheckRequest(t, code, { [field]: value });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('validation_failed');
    expect(error.message).toContain(field);
    expect(error.message).not.toContain(String(value));
  });

  it('trims whitespace around machine_id, as read from the machine-id file', async () => {
    const code = await issueCode(t);
    const res = await precheckRequest(t, code, { machine_id: '4c4c4544003957108052b4c04f384833\n' });
    expect(res.status).toBe(200);
    expect((await res.json()).data.machine_binding.machine_id).toBe('4c4c4544003957108052b4c04f384833');
  });

  it('answers 400 for malformed JSON and 415 for another content type', async () => {
    const path = '/api/v2/slowdns/install/precheck';
    await expectRefusal(
      t,
      () =>
        t.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"install_code": ' }),
      400,
      'validation_failed',
    );
    await expectRefusal(
      t,
      () => t.request(path, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'SDNS-SD' }),
      415,
      'unsupported_media_type',
    );
    await expectRefusal(
      t,
      () =>
        t.request(path, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'a=b',
        }),
      415,
      'unsupported_media_type',
    );
  });

  it('a 2 MB body is 413 payload_too_large, and an empty JSON body is 400 validation_failed', async () => {
    const path = '/api/v2/slowdns/install/precheck';
    await expectRefusal(
      t,
      () => t.request(path, postJson({ install_code: 'x'.repeat(2 * 1024 * 1024) })),
      413,
      'payload_too_large',
    );
    await expectRefusal(
      t,
      () => t.request(path, { method: 'POST', headers: { 'content-type': 'application/json' } }),
      400,
      'validation_failed',
    );
  });

  it.each([
    ['spaces instead of dashes', (c: string) => c.replace(/-/g, ' ')],
    ['no separators at all', (c: string) => c.replace(/-/g, '')],
    ['en dashes and a zero-width space from a copy', (c: string) => `${c.replace(/-/g, '\u2013')}\u200b`],
    ['full-width letters', (c: string) => c.replace('SDNS', '\uff33\uff24\uff2e\uff33')],
  ])('forgives a code typed with %s', async (_, retype) => {
    const code = await issueCode(t);
    const res = await precheckRequest(t, retype(code));
    expect(res.status).toBe(200);
    expect((await res.json()).data.install_code).toBe(code);
  });

  it('a well-formed code that does not exist is 404 install_code_not_found', async () => {
    await expectRefusal(t, () => precheckRequest(t, 'SDNS-SD-000000-000000-000000'), 404, 'install_code_not_found');
    await expectRefusal(t, () => precheckRequest(t, 'ACME-SD-000000-000000-000000'), 404, 'install_code_not_found');
  });

  it('an expired code is 410 install_code_expired', async () => {
    const code = await issueCode(t);
    t.clock.advance(899);
    expect((await precheckRequest(t, code)).status).toBe(200);
    t.clock.advance(1);
    await expectRefusal(t, () => precheckRequest(t, code), 410, 'install_code_expired');
  });

  it('a code expires at the whole second its expires_at states, and its precheck token with it', async () => {
    t.clock.set('2026-11-22T10:00:00.700Z');
    const code = await issueCode(t);
    t.clock.set('2026-11-22T10:14:59.999Z');
    const { data } = await (await precheckRequest(t, code)).json();
    expect(data.precheck_expires_at).toBe('2026-11-22T10:15:00+00:00');
    t.clock.set('2026-11-22T10:15:00.000Z');
    await expectRefusal(t, () => precheckRequest(t, code), 410, 'install_code_expired');
  });

  it('the precheck token never outlives the code', async () => {
    const code = await issueCode(t);
    t.clock.advance(600);
    const { data } = await (await precheckRequest(t, code)).json();
    expect(data.precheck_expires_at).toBe('2026-11-22T10:15:00+00:00');
  });

  it('an activated or consumed code is 409 install_code_unavailable', async () => {
    const a = await activatedInstall(t);
    await expectRefusal(t, () => precheckRequest(t, a.code), 409, 'install_code_unavailable');
    expect((await confirmRequest(t, a.activationId, a.installToken)).status).toBe(200);
    await expectRefusal(t, () => precheckRequest(t, a.code), 409, 'install_code_unavailable');
  });

  it('an installer below MIN_INSTALLER_VERSION is 426 installer_outdated at precheck and activate', async () => {
    const strict = buildTestApp(t.database, t.keys, { MIN_INSTALLER_VERSION: '2026.11.21.1' }, t.clock);
    const code = await issueCode(strict);
    await expectRefusal(
      t,
      () => precheckRequest(strict, code, { installer_version: '2026.11.20.9' }),
      426,
      'installer_outdated',
    );
    await expectRefusal(
      t,
      () => activateRequest(strict, code, 'x.y.z', { installer_version: '2026.9.30.1' }),
      426,
      'installer_outdated',
    );
    expect((await precheckRequest(strict, code, { installer_version: '2026.11.21.1' })).status).toBe(200);
    expect((await precheckRequest(strict, code, { installer_version: '2027.1.1.1' })).status).toBe(200);
  });
});

describe('activate errors', () => {
  const t = useTestApp();

  const codeStatus = async (code: string) =>
    (
      await t.database.db
        .select()
        .from(installCodes)
        .where(eq(installCodes.codeHash, sha256Hex(code)))
    )[0]?.status;

  it("another machine than the precheck's is 403 machine_mismatch and changes nothing", async () => {
    const code = await issueCode(t);
    const token = await precheckToken(t, code);
    await expectRefusal(
      t,
      () => activateRequest(t, code, token, { machine_id: otherMachine.machine_id }),
      403,
      'machine_mismatch',
    );
    await expectRefusal(
      t,
      () => activateRequest(t, code, token, { ssh_fingerprint: otherMachine.ssh_fingerprint }),
      403,
      'machine_mismatch',
    );
    expect(await codeStatus(code)).toBe('issued');
    expect(await t.database.db.select().from(activations)).toHaveLength(0);
  });

  it.each([
    ['hostname', '-bad-.example'],
    ['hostname', `${'a'.repeat(64)}.example`],
    ['hostname', 'under_score.example'],
    ['public_ip', '300.1.1.1'],
    ['public_ip', 'vpn1.example.net'],
    ['requested_ref', '../etc/passwd'],
    ['requested_ref', 'feature/x.lock'],
    ['requested_ref', 'has space'],
  ])('refuses a bad %s (%s) with 400 naming it', async (field, value) => {
    const code = await issueCode(t);
    const res = await activateRequest(t, code, await precheckToken(t, code), { [field]: value });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error).toMatchObject({ code: 'validation_failed', message: expect.stringContaining(field) });
    expect(await codeStatus(code)).toBe('issued');
  });

  it('refuses an IPv6 zone index and stores an IPv4-mapped address as IPv4', async () => {
    const code = await issueCode(t);
    const token = await precheckToken(t, code);
    await expectRefusal(
      t,
      () => activateRequest(t, code, token, { public_ip: 'fe80::1%eth0' }),
      400,
      'validation_failed',
    );
    const res = await activateRequest(t, code, token, { public_ip: '::ffff:203.0.113.9' });
    expect(res.status).toBe(200);
    expect((await res.json()).data.machine_binding.public_ip).toBe('203.0.113.9');
  });

  it('accepts IPv6, a single-label hostname and a trailing dot, stored normalised', async () => {
    const code = await issueCode(t);
    const res = await activateRequest(t, code, await precheckToken(t, code), {
      public_ip: '2001:db8::7',
      hostname: 'VPN1.Example.NET.',
    });
    expect(res.status).toBe(200);
    expect((await res.json()).data.machine_binding).toMatchObject({
      hostname: 'vpn1.example.net',
      public_ip: '2001:db8::7',
    });
  });

  it('a second activation of an activated code is 409 install_code_unavailable', async () => {
    const code = await issueCode(t);
    const token = await precheckToken(t, code);
    expect((await activateRequest(t, code, token)).status).toBe(200);
    // Another hostname: not a repeat of the first request (test/lifecycle/activate-retry.test.ts).
    await expectRefusal(
      t,
      () => activateRequest(t, code, token, { hostname: 'vpn2.example.net' }),
      409,
      'install_code_unavailable',
    );
    expect(await t.database.db.select().from(activations)).toHaveLength(1);
  });
});
