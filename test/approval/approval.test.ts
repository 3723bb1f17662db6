import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { activations, events, installCodePrechecks, installCodes, rateLimitBuckets } from '../../src/db/schema.js';
import { decisionRequest, issueWithApproval, precheckWaiting } from '../support/approval-flow.js';
import {
  activateRequest,
  cancelRequest,
  expectError,
  issue,
  machine,
  newBrowser,
  otherMachine,
  precheckRequest,
  releaseRequest,
  type Browser,
} from '../support/install-flow.js';
import { useTestApp } from '../support/test-app.js';

const t = useTestApp();
const INSTALLER_IP = '192.0.2.44';

/** Every row a decision or a waiting activate could change (the approval-wait buckets left out). */
async function approvalRows() {
  const { db } = t.database;
  return {
    installCodes: await db.select().from(installCodes).orderBy(installCodes.id),
    prechecks: await db.select().from(installCodePrechecks).orderBy(installCodePrechecks.id),
    activations: await db.select().from(activations).orderBy(activations.id),
    events: await db.select().from(events).orderBy(events.id),
  };
}

async function expectNothingChanged(send: () => Promise<Response>, status: number, code: string): Promise<void> {
  const before = await approvalRows();
  await expectError(await send(), status, code);
  expect(await approvalRows()).toEqual(before);
}

const eventTypes = async (installCodeId: string) =>
  (await t.database.db.select().from(events).where(eq(events.installCodeId, installCodeId)).orderBy(events.id)).map(
    (e) => e.type,
  );

async function watched(browser: Browser, installCodeId: string) {
  const res = await t.request(
    '/api/v2/slowdns/code/status',
    { headers: { cookie: browser.cookie, ...browser.headers } },
    browser.address,
  );
  expect(res.status).toBe(200);
  return (await res.json()).data.items.find((i: { install_code_id: string }) => i.install_code_id === installCodeId);
}

/** A browser, its code issued with approval, and one machine's precheck waiting. */
async function waitingInstall() {
  const browser = await newBrowser(t);
  const issued = await issueWithApproval(t, browser);
  const precheck = await precheckWaiting(t, issued.code, machine, INSTALLER_IP);
  return { browser, ...issued, ...precheck };
}

describe('issue and precheck of a code issued with approval', () => {
  it('issue answers require_approval: true when asked, false without a body', async () => {
    const browser = await newBrowser(t);
    await issueWithApproval(t, browser);
    const res = await t.request(
      '/api/v2/slowdns/code/issue',
      { method: 'POST', headers: { cookie: browser.cookie, ...browser.headers } },
      browser.address,
    );
    expect(res.status).toBe(201);
    expect((await res.json()).data.require_approval).toBe(false);
  });

  it('precheck answers a precheck_id its token carries', async () => {
    const { precheckId, token } = await waitingInstall();
    expect(precheckId).toMatch(/^pc_[0-9a-f]{16}$/);
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims.pci).toBe(precheckId);
  });

  it('the page sees the machine whose approval is pending', async () => {
    const { browser, id, precheckId } = await waitingInstall();
    expect(await watched(browser, id)).toMatchObject({
      require_approval: true,
      approval: 'pending',
      status: 'prechecked',
      prechecks: [
        {
          precheck_id: precheckId,
          precheck_ip: INSTALLER_IP,
          machine_id_short: machine.machine_id.slice(0, 8),
          ssh_fingerprint: machine.ssh_fingerprint,
          installer_version: '2026.11.20.1',
          prechecked_at: '2026-11-22T10:00:00+00:00',
          approval: 'pending',
        },
      ],
    });
  });

  it('keeps the seed flow of a code issued without approval: precheck answers exactly as before, no precheck kept, activate as usual', async () => {
    const browser = await newBrowser(t);
    const { code, id } = await issue(t, browser);
    const res = await precheckRequest(t, code, {}, INSTALLER_IP);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body.data).sort()).toEqual([
      'install_code',
      'install_code_hint',
      'machine_binding',
      'machine_proof',
      'observed_ip',
      'precheck_expires_at',
      'precheck_token',
      'proof_challenge',
    ]);
    expect(body.meta.message).toBe('Install code is valid for this machine.');
    const claims = JSON.parse(Buffer.from(body.data.precheck_token.split('.')[1]!, 'base64url').toString());
    // No approval claim (`pci`); `pck`, the precheck's hashed address, is every precheck token's (a release's proof).
    expect(Object.keys(claims).sort()).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'mid', 'pch', 'pck', 'ssh', 'sub']);
    const activated = await activateRequest(t, code, body.data.precheck_token, {}, INSTALLER_IP);
    expect(activated.status).toBe(200);
    expect(await t.database.db.select().from(installCodePrechecks)).toEqual([]);
    expect(await watched(browser, id)).toMatchObject({
      require_approval: false,
      approval: 'not_required',
      prechecks: [],
      status: 'activated',
    });
    expect(await eventTypes(id)).toEqual(['install_code.issued', 'install_code.activated', 'activation.created']);
  });
});

describe('activate of a code awaiting approval', () => {
  it('answers 409 approval_pending with Retry-After, writes nothing and counts in none of the seed limits', async () => {
    const { code, token } = await waitingInstall();
    await expectNothingChanged(() => activateRequest(t, code, token, {}, INSTALLER_IP), 409, 'approval_pending');
    t.clock.advance(5);
    const res = await activateRequest(t, code, token, {}, INSTALLER_IP);
    expect(res.status).toBe(409);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(5);
    const limits = (await t.database.db.select().from(rateLimitBuckets)).map((b) => b.limitName);
    expect(limits.filter((name) => name.startsWith('activate-'))).toEqual([]);
  });

  it('answers 429 to a repeat faster than its bucket, with the rest of the bucket as Retry-After, and 409 again after it', async () => {
    const { code, token } = await waitingInstall();
    t.clock.advance(1);
    expect((await activateRequest(t, code, token, {}, INSTALLER_IP)).status).toBe(409);
    t.clock.advance(2);
    const fast = await activateRequest(t, code, token, {}, INSTALLER_IP);
    expect(fast.headers.get('retry-after')).toBe('2');
    await expectError(fast, 429, 'rate_limit_exceeded');
    t.clock.advance(2);
    await expectError(await activateRequest(t, code, token, {}, INSTALLER_IP), 409, 'approval_pending');
  });

  it('once approved, the next activate answers 200 at once, even within the same bucket', async () => {
    const { browser, code, id, token, precheckId } = await waitingInstall();
    expect((await activateRequest(t, code, token, {}, INSTALLER_IP)).status).toBe(409);
    const approved = await decisionRequest(t, 'approve', browser, id, precheckId);
    expect(approved.status).toBe(200);
    const body = await approved.json();
    expect(body.data).toMatchObject({
      install_code_id: id,
      approval: 'approved',
      require_approval: true,
      usable: true,
      prechecks: [{ precheck_id: precheckId, approval: 'approved' }],
    });
    expect(approved.headers.get('cache-control')).toBe('no-store');
    expect((await activateRequest(t, code, token, {}, INSTALLER_IP)).status).toBe(200);
    expect(await eventTypes(id)).toEqual([
      'install_code.issued',
      'install_code.approval_requested',
      'install_code.approved',
      'install_code.activated',
      'activation.created',
    ]);
    const [approvedEvent] = await t.database.db.select().from(events).where(eq(events.type, 'install_code.approved'));
    expect(approvedEvent).toMatchObject({
      actor: 'browser',
      data: { precheck_id: precheckId, precheck_ip: INSTALLER_IP, ssh_fingerprint: machine.ssh_fingerprint },
    });
  });

  it('binds the approval to that precheck: another precheck token, even of the same machine, is 403 machine_mismatch', async () => {
    const { browser, code, id, precheckId } = await waitingInstall();
    t.clock.advance(1);
    const sameIdentity = await precheckWaiting(t, code, machine, '198.51.100.99');
    t.clock.advance(1);
    const second = await precheckWaiting(t, code, otherMachine, '198.51.100.98');
    expect((await watched(browser, id)).prechecks.map((p: { precheck_id: string }) => p.precheck_id)).toEqual([
      second.precheckId,
      sameIdentity.precheckId,
      precheckId,
    ]);
    t.clock.advance(1);
    expect((await decisionRequest(t, 'approve', browser, id, precheckId)).status).toBe(200);
    await expectNothingChanged(
      () => activateRequest(t, code, sameIdentity.token, {}, '198.51.100.99'),
      403,
      'machine_mismatch',
    );
    await expectNothingChanged(
      () => activateRequest(t, code, second.token, otherMachine, '198.51.100.98'),
      403,
      'machine_mismatch',
    );
    expect((await watched(browser, id)).prechecks.map((p: { approval: string }) => p.approval)).toEqual([
      'not_chosen',
      'not_chosen',
      'approved',
    ]);
  });

  it('a precheck after the approval, from another machine or the same, is 403 machine_mismatch at once and leaves the approved machine on the page', async () => {
    const { browser, code, id, precheckId } = await waitingInstall();
    t.clock.advance(1);
    expect((await decisionRequest(t, 'approve', browser, id, precheckId)).status).toBe(200);
    const page = await watched(browser, id);
    t.clock.advance(1);
    await expectNothingChanged(() => precheckRequest(t, code, otherMachine, '198.51.100.98'), 403, 'machine_mismatch');
    await expectNothingChanged(() => precheckRequest(t, code, machine, INSTALLER_IP), 403, 'machine_mismatch');
    expect(await watched(browser, id)).toEqual(page);
  });

  it('denied: the code is revoked with approval denied, recorded as the browser', async () => {
    const { browser, id, precheckId } = await waitingInstall();
    const denied = await decisionRequest(t, 'deny', browser, id, precheckId);
    expect(denied.status).toBe(200);
    expect((await denied.json()).data).toMatchObject({
      status: 'revoked',
      approval: 'denied',
      usable: false,
      prechecks: [{ approval: 'denied' }],
    });
    const [row] = await t.database.db.select().from(installCodes).where(eq(installCodes.id, id));
    expect(row).toMatchObject({ status: 'revoked' });
    const [precheck] = await t.database.db
      .select()
      .from(installCodePrechecks)
      .where(eq(installCodePrechecks.id, precheckId));
    expect(precheck).toMatchObject({ installCodeId: id, decision: 'denied' });
    const [deniedEvent] = await t.database.db.select().from(events).where(eq(events.type, 'install_code.denied'));
    expect(deniedEvent).toMatchObject({
      actor: 'browser',
      installCodeId: id,
      data: { precheck_id: precheckId, reason: 'denied' },
    });
  });

  it('after a denial, precheck and activate answer 403 approval_denied', async () => {
    const { browser, code, id, token, precheckId } = await waitingInstall();
    expect((await decisionRequest(t, 'deny', browser, id, precheckId)).status).toBe(200);
    await expectNothingChanged(() => activateRequest(t, code, token, {}, INSTALLER_IP), 403, 'approval_denied');
    await expectError(await precheckRequest(t, code, {}, INSTALLER_IP), 403, 'approval_denied');
  });

  it('a release that restores an approved code asks again: old tokens are 401 precheck_token_invalid, a new precheck waits', async () => {
    const { browser, code, id, token, precheckId } = await waitingInstall();
    expect((await decisionRequest(t, 'approve', browser, id, precheckId)).status).toBe(200);
    const activated = await activateRequest(t, code, token, {}, INSTALLER_IP);
    expect(activated.status).toBe(200);
    expect(
      (await releaseRequest(t, (await activated.json()).data.activation_id, { address: INSTALLER_IP })).status,
    ).toBe(200);
    expect(await watched(browser, id)).toMatchObject({ approval: 'pending', usable: true, prechecks: [] });
    await expectNothingChanged(() => activateRequest(t, code, token, {}, INSTALLER_IP), 401, 'precheck_token_invalid');
    const again = await precheckWaiting(t, code, machine, INSTALLER_IP);
    await expectError(await activateRequest(t, code, again.token, {}, INSTALLER_IP), 409, 'approval_pending');
  });
});

describe('POST /api/v2/slowdns/code/approve and /code/deny', () => {
  it('repeating the same decision answers 200 and records nothing more', async () => {
    const { browser, id, precheckId } = await waitingInstall();
    expect((await decisionRequest(t, 'approve', browser, id, precheckId)).status).toBe(200);
    const before = await approvalRows();
    const again = await decisionRequest(t, 'approve', browser, id, precheckId);
    expect(again.status).toBe(200);
    expect((await again.json()).meta.message).toBe('Already decided so: nothing changed.');
    expect(await approvalRows()).toEqual(before);
  });

  it('the opposite of a decision made is 409 approval_decided', async () => {
    const { browser, id, precheckId } = await waitingInstall();
    expect((await decisionRequest(t, 'approve', browser, id, precheckId)).status).toBe(200);
    await expectNothingChanged(() => decisionRequest(t, 'deny', browser, id, precheckId), 409, 'approval_decided');
  });

  it('after a denial, approve is 409 approval_decided and deny again 200', async () => {
    const { browser, id, precheckId } = await waitingInstall();
    expect((await decisionRequest(t, 'deny', browser, id, precheckId)).status).toBe(200);
    await expectNothingChanged(() => decisionRequest(t, 'approve', browser, id, precheckId), 409, 'approval_decided');
    expect((await decisionRequest(t, 'deny', browser, id, precheckId)).status).toBe(200);
    expect((await eventTypes(id)).filter((e) => e === 'install_code.denied')).toHaveLength(1);
  });

  it('approving a second precheck after the first is 409 approval_decided', async () => {
    const { browser, code, id, precheckId } = await waitingInstall();
    const second = await precheckWaiting(t, code, otherMachine);
    expect((await decisionRequest(t, 'approve', browser, id, precheckId)).status).toBe(200);
    await expectNothingChanged(
      () => decisionRequest(t, 'approve', browser, id, second.precheckId),
      409,
      'approval_decided',
    );
    await expectNothingChanged(
      () => decisionRequest(t, 'deny', browser, id, second.precheckId),
      409,
      'approval_decided',
    );
  });

  it('refuses without a session, from another session, cross-site, and with an unknown or foreign precheck_id, changing nothing', async () => {
    const { browser, code, id, precheckId } = await waitingInstall();
    const stranger = await newBrowser(t);
    const otherCode = await issueWithApproval(t, browser);
    const foreign = await precheckWaiting(t, otherCode.code, otherMachine);
    for (const decision of ['approve', 'deny'] as const) {
      await expectNothingChanged(
        () => decisionRequest(t, decision, { ...browser, cookie: '' }, id, precheckId),
        403,
        'browser_session_required',
      );
      await expectNothingChanged(
        () => decisionRequest(t, decision, stranger, id, precheckId),
        404,
        'install_code_not_found',
      );
      await expectNothingChanged(
        () => decisionRequest(t, decision, browser, id, precheckId, { origin: 'https://evil.example' }),
        403,
        'cross_site_request',
      );
      await expectNothingChanged(
        () => decisionRequest(t, decision, browser, id, precheckId, { 'sec-fetch-site': 'cross-site' }),
        403,
        'cross_site_request',
      );
      await expectNothingChanged(
        () => decisionRequest(t, decision, browser, id, 'pc_0000000000000000'),
        404,
        'precheck_not_found',
      );
      await expectNothingChanged(
        () => decisionRequest(t, decision, browser, id, foreign.precheckId),
        404,
        'precheck_not_found',
      );
      await expectNothingChanged(
        () => decisionRequest(t, decision, browser, id, 'pc_nothex'),
        400,
        'validation_failed',
      );
    }
    expect(await watched(browser, id)).toMatchObject({ approval: 'pending' });
    expect(code).toBeTruthy();
  });

  it('refuses a decision on an expired or cancelled code with its error, changing nothing', async () => {
    const expired = await waitingInstall();
    t.clock.advance(900);
    await expectNothingChanged(
      () => decisionRequest(t, 'approve', expired.browser, expired.id, expired.precheckId),
      410,
      'install_code_expired',
    );
    await expectNothingChanged(
      () => decisionRequest(t, 'deny', expired.browser, expired.id, expired.precheckId),
      410,
      'install_code_expired',
    );
    const cancelled = await waitingInstall();
    expect((await cancelRequest(t, cancelled.browser, cancelled.id)).status).toBe(200);
    await expectNothingChanged(
      () => decisionRequest(t, 'approve', cancelled.browser, cancelled.id, cancelled.precheckId),
      410,
      'install_code_revoked',
    );
    await expectNothingChanged(
      () => decisionRequest(t, 'deny', cancelled.browser, cancelled.id, cancelled.precheckId),
      410,
      'install_code_revoked',
    );
  });
});
