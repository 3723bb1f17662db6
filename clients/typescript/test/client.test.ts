/** The typed client's successful calls, in-process and over HTTP; its error answers are in error-mapping.test.ts. */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations } from '../../../src/db/schema.js';
import {
  activateBody,
  apiError,
  browserSession,
  issueCode,
  machine,
  precheckBody,
  transports,
  type ClientHarness,
  harnessPerSuite,
  codeStatusOf,
} from './client-harness.js';

describe.each(transports)('the typed client, %s', (_name, transport) => {
  let h: ClientHarness;
  harnessPerSuite(transport, (opened) => {
    h = opened;
  });

  const codeStatus = (code: string) => codeStatusOf(h, code);

  /** Issue → precheck → activate through the client. */
  async function activated() {
    const code = await issueCode(h);
    const precheck = await h.client.precheck(precheckBody(code));
    return { code, activation: await h.client.activate(activateBody(code, precheck.precheck_token)) };
  }

  it('healthz answers the unwrapped data', async () => {
    expect(await h.client.healthz()).toEqual({ status: 'ok' });
  });

  it('a whole install: issue → precheck → activate → confirm, with typed results', async () => {
    const issued = await h.client.issueInstallCode({ browserSession: await browserSession(h) });
    expect(issued).toEqual({
      install_code_id: expect.stringMatching(/^ic_[0-9a-f]{16}$/),
      install_code: expect.stringMatching(/^SDNS-SD-\w{6}-\w{6}-\w{6}$/),
      install_code_hint: `SDNS-SD-…${issued.install_code.slice(-6)}`,
      expires_at: '2026-11-22T10:15:00+00:00',
      ttl_seconds: 900,
      require_approval: false,
    });

    // The service forgives case and spaces; the client passes the code as typed.
    const precheck = await h.client.precheck(precheckBody(` ${issued.install_code.toLowerCase()} `));
    expect(precheck).toEqual({
      install_code: issued.install_code,
      install_code_hint: issued.install_code_hint,
      precheck_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      precheck_expires_at: '2026-11-22T10:15:00+00:00',
      machine_binding: machine,
      observed_ip: expect.stringMatching(/^(203\.0\.113\.10|127\.0\.0\.1)$/),
      proof_challenge: expect.stringMatching(/^[\w-]{43}$/),
      machine_proof: 'optional',
    });

    const activation = await h.client.activate(activateBody(issued.install_code, precheck.precheck_token));
    expect(activation).toEqual({
      activation_id: expect.stringMatching(/^act_[0-9a-f]{16}$/),
      install_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      install_token_expires_at: '2026-11-22T11:00:00+00:00',
      install_code: issued.install_code,
      machine_binding: { hostname: 'vpn1.example.net', public_ip: '203.0.113.7', ...machine, ssh_key_proven: false },
      observed_ip: precheck.observed_ip,
      public_ip_matches_observed: false,
    });
    expect(await codeStatus(issued.install_code)).toBe('activated');

    expect(
      await h.client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token }),
    ).toEqual({
      activation_id: activation.activation_id,
      status: 'confirmed',
      receipt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
    });
    expect(await codeStatus(issued.install_code)).toBe('consumed');
  });

  it('release restores the code, and says so', async () => {
    const { code, activation } = await activated();
    expect(await h.client.release({ activation_id: activation.activation_id })).toEqual({
      activation_id: activation.activation_id,
      status: 'released',
      install_code_restored: true,
    });
    expect(await codeStatus(code)).toBe('issued');
  });

  it('follows and cancels the codes of its own browser session only, as the page does', async () => {
    const session = await browserSession(h);
    const other = await browserSession(h);
    const issued = await h.client.issueInstallCode({ browserSession: session });
    expect((await h.client.installCodeStatus({ browserSession: session })).items).toEqual([
      expect.objectContaining({
        install_code_id: issued.install_code_id,
        install_code_hint: issued.install_code_hint,
        status: 'issued',
        usable: true,
        machine: null,
      }),
    ]);
    expect(await h.client.installCodeStatus({ browserSession: other })).toEqual({ items: [] });

    await h.client.precheck(precheckBody(issued.install_code));
    const [prechecked] = (await h.client.installCodeStatus({ browserSession: session })).items;
    expect(prechecked).toMatchObject({
      status: 'prechecked',
      usable: true,
      machine: { machine_id_short: machine.machine_id.slice(0, 8), ssh_fingerprint: machine.ssh_fingerprint },
    });

    await apiError(
      h.client.cancelInstallCode({ install_code_id: issued.install_code_id }, { browserSession: other }),
      404,
      'install_code_not_found',
    );
    const cancelled = await h.client.cancelInstallCode(
      { install_code_id: issued.install_code_id },
      { browserSession: session },
    );
    expect(cancelled).toMatchObject({
      install_code_id: issued.install_code_id,
      status: 'revoked',
      usable: false,
      revoked_at: '2026-11-22T10:00:00+00:00',
    });
    // Idempotent: a repeat answers the code as it is.
    expect(
      await h.client.cancelInstallCode({ install_code_id: issued.install_code_id }, { browserSession: session }),
    ).toEqual(cancelled);
    expect((await h.client.installCodeStatus({ browserSession: session })).items).toEqual([cancelled]);
    await apiError(h.client.precheck(precheckBody(issued.install_code)), 410, 'install_code_revoked');
  });

  it('cannot cancel a confirmed install (409 activation_confirmed), nor read a status without a session', async () => {
    const session = await browserSession(h);
    const issued = await h.client.issueInstallCode({ browserSession: session });
    const precheck = await h.client.precheck(precheckBody(issued.install_code));
    const activation = await h.client.activate(activateBody(issued.install_code, precheck.precheck_token));
    await h.client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token });
    await apiError(
      h.client.cancelInstallCode({ install_code_id: issued.install_code_id }, { browserSession: session }),
      409,
      'activation_confirmed',
    );
    expect((await h.client.installCodeStatus({ browserSession: session })).items[0]).toMatchObject({
      status: 'confirmed',
      usable: false,
    });
    await apiError(h.client.installCodeStatus(), 403, 'browser_session_required');
  });

  it('the activation row agrees with what the client was told', async () => {
    const { activation } = await activated();
    await h.client.release({ activation_id: activation.activation_id });
    const [row] = await h.t.database.db.select().from(activations).where(eq(activations.id, activation.activation_id));
    expect(row?.status).toBe('released');
  });
});
