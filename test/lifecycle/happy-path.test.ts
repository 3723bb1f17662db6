import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, installCodes } from '../../src/db/schema.js';
import { sha256Hex } from '../../src/domain/tokens/secret-hash.js';
import {
  activateRequest,
  confirmRequest,
  issueRequest,
  machine,
  openBrowserSession,
  precheckRequest,
  releaseRequest,
} from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';

const isoOffset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

describe('the install lifecycle, step by step', () => {
  const t = useTestApp();

  const codeRow = async (code: string) =>
    (
      await t.database.db
        .select()
        .from(installCodes)
        .where(eq(installCodes.codeHash, sha256Hex(code)))
    )[0];

  it('issue → precheck → activate → confirm consumes the code and the token', async () => {
    const cookie = await openBrowserSession(t);
    const issued = await issueRequest(t, cookie);
    expect(issued.status).toBe(201);
    const { data: code, meta } = await issued.json();
    expect(code.install_code).toMatch(/^SDNS-SD-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}$/);
    expect(code.install_code_hint).toBe(`SDNS-SD-…${code.install_code.slice(-6)}`);
    expect(code.ttl_seconds).toBe(900);
    expect(code.expires_at).toBe('2026-11-22T10:15:00+00:00');
    expect(meta.message).toEqual(expect.any(String));
    expect((await codeRow(code.install_code))?.status).toBe('issued');

    const pre = await precheckRequest(t, code.install_code);
    expect(pre.status).toBe(200);
    const { data: precheck } = await pre.json();
    expect(precheck).toEqual({
      install_code: code.install_code,
      install_code_hint: code.install_code_hint,
      precheck_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      precheck_expires_at: '2026-11-22T10:15:00+00:00',
      machine_binding: machine,
      observed_ip: '203.0.113.10',
      proof_challenge: expect.stringMatching(/^[\w-]{43}$/),
      machine_proof: 'optional',
    });
    expect((await codeRow(code.install_code))?.status).toBe('issued');

    const act = await activateRequest(t, code.install_code, precheck.precheck_token);
    expect(act.status).toBe(200);
    const { data: activation } = await act.json();
    expect(activation).toEqual({
      activation_id: expect.stringMatching(/^act_[0-9a-f]{16}$/),
      install_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      install_token_expires_at: '2026-11-22T11:00:00+00:00',
      install_code: code.install_code,
      machine_binding: { hostname: 'vpn1.example.net', public_ip: '203.0.113.7', ...machine, ssh_key_proven: false },
      observed_ip: '203.0.113.10',
      public_ip_matches_observed: false,
    });
    expect(activation.install_token_expires_at).toMatch(isoOffset);
    expect((await codeRow(code.install_code))?.status).toBe('activated');

    const conf = await confirmRequest(t, activation.activation_id, activation.install_token);
    expect(conf.status).toBe(200);
    expect((await conf.json()).data).toEqual({
      activation_id: activation.activation_id,
      status: 'confirmed',
      receipt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
    });
    expect((await codeRow(code.install_code))?.status).toBe('consumed');
    const [row] = await t.database.db.select().from(activations).where(eq(activations.id, activation.activation_id));
    expect(row).toMatchObject({ status: 'confirmed', installTokenUsedAt: t.clock.now() });
  });

  it('release before confirm restores the code to issued and the retry succeeds', async () => {
    const cookie = await openBrowserSession(t);
    const { data: code } = await (await issueRequest(t, cookie)).json();
    const { data: pre } = await (await precheckRequest(t, code.install_code)).json();
    const { data: act } = await (await activateRequest(t, code.install_code, pre.precheck_token)).json();

    const rel = await releaseRequest(t, act.activation_id);
    expect(rel.status).toBe(200);
    expect((await rel.json()).data).toEqual({
      activation_id: act.activation_id,
      status: 'released',
      install_code_restored: true,
    });
    expect((await codeRow(code.install_code))?.status).toBe('issued');

    const { data: pre2 } = await (await precheckRequest(t, code.install_code)).json();
    const retry = await activateRequest(t, code.install_code, pre2.precheck_token);
    expect(retry.status).toBe(200);
    expect((await retry.json()).data.activation_id).not.toBe(act.activation_id);
  });

  it('accepts a code typed in lower case with spaces and Crockford look-alikes', async () => {
    const cookie = await openBrowserSession(t);
    const { data: code } = await (await issueRequest(t, cookie)).json();
    const sloppy = `  ${code.install_code.toLowerCase().replace(/0/g, 'o').replace(/1/g, 'l').replace(/-/g, ' - ')} `;
    const res = await precheckRequest(t, sloppy);
    expect(res.status).toBe(200);
    expect((await res.json()).data.install_code).toBe(code.install_code);
  });
});
