import { describe, expect, it } from 'vitest';
import {
  activateWhenApproved,
  runInstall,
  SlowdnsApiError,
  SlowdnsApprovalExpiredError,
  type RunInstallOptions,
} from '../src/index.js';
import {
  activateBody,
  address,
  browserSession,
  inProcess,
  INSTALLER_VERSION,
  machine,
  precheckBody,
  type ClientHarness,
  harnessPerSuite,
} from './client-harness.js';

describe("waiting for the person's approval (DESIGN §14)", () => {
  let h: ClientHarness;
  harnessPerSuite(
    inProcess,
    (opened) => {
      h = opened;
    },
    { clock: '2026-11-22T10:00:00.000Z' },
  );

  /** A code issued with approval, and the session that decides on it. */
  async function waitingCode() {
    const session = await browserSession(h);
    const issued = await h.client.issueInstallCode({ browserSession: session, requireApproval: true });
    expect(issued.require_approval).toBe(true);
    return { session, issued };
  }

  const options = (
    installCode: string,
    said: string[],
    overrides: Partial<RunInstallOptions> = {},
  ): RunInstallOptions => ({
    client: h.client,
    installCode,
    machine,
    installerVersion: INSTALLER_VERSION,
    requestedRef: 'main',
    confirmAddress: async () => address,
    install: async () => {},
    signals: [],
    onApprovalWaiting: (message) => said.push(message),
    ...overrides,
  });

  /** The person, once the installer says it waits and its precheck shows on their page, approves or denies it. */
  async function decideWhenShown(
    session: string,
    installCodeId: string,
    decision: 'approve' | 'deny',
    said: string[],
  ): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if (said.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      const code = (await h.client.installCodeStatus({ browserSession: session })).items.find(
        (c) => c.install_code_id === installCodeId,
      )!;
      const waiting = code.prechecks.find((p) => p.approval === 'pending');
      if (waiting) {
        const body = { install_code_id: installCodeId, precheck_id: waiting.precheck_id };
        const decided =
          decision === 'approve'
            ? await h.client.approveInstallCodePrecheck(body, { browserSession: session })
            : await h.client.denyInstallCodePrecheck(body, { browserSession: session });
        expect(decided.approval).toBe(decision === 'approve' ? 'approved' : 'denied');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('no precheck waiting on the page');
  }

  /** The installer's wait between two tries: until the person has decided, the service's clock moved on by it (no real seconds). */
  const untilDecided = (decided: Promise<void>) => async (ms: number) => {
    await decided;
    h.t.clock.advance(ms / 1000);
  };

  it("runInstall says once that it waits, with the code's hint, and confirms once the person approves", async () => {
    const { session, issued } = await waitingCode();
    const said: string[] = [];
    const decided = decideWhenShown(session, issued.install_code_id, 'approve', said);
    const result = await runInstall(options(issued.install_code, said, { approvalSleep: untilDecided(decided) }));
    await decided;
    expect(result.outcome).toBe('confirmed');
    expect(said).toEqual([
      `Waiting for the person who got code ${issued.install_code_hint} to approve this machine on the SlowDNS page (/slowdns)`,
    ]);
  });

  it('runInstall fails at activate with 403 approval_denied when the person denies, and nothing was activated', async () => {
    const { session, issued } = await waitingCode();
    const said: string[] = [];
    const decided = decideWhenShown(session, issued.install_code_id, 'deny', said);
    const result = await runInstall(options(issued.install_code, said, { approvalSleep: untilDecided(decided) }));
    await decided;
    expect(result).toMatchObject({ outcome: 'failed', stage: 'activate' });
    if (result.outcome !== 'failed') throw new Error('not failed');
    expect(result.error).toBeInstanceOf(SlowdnsApiError);
    expect((result.error as SlowdnsApiError).code).toBe('approval_denied');
    expect(result.release).toBeUndefined();
    expect(said).toHaveLength(1);
  });

  it("activateWhenApproved stops at the code's expiry (as the service sees it) with SlowdnsApprovalExpiredError", async () => {
    const { issued } = await waitingCode();
    const precheck = await h.client.precheck(precheckBody(issued.install_code));
    expect(precheck.approval).toBe('pending');
    const said: string[] = [];
    // The service's clock passes the code's expiry once the wait has begun.
    const wait = activateWhenApproved(h.client, precheck, activateBody(issued.install_code, precheck.precheck_token), {
      onWaiting: (m) => {
        said.push(m);
        h.t.clock.set(new Date(Date.parse(precheck.precheck_expires_at) + 1000).toISOString());
      },
      sleep: async () => {},
    });
    await expect(wait).rejects.toBeInstanceOf(SlowdnsApprovalExpiredError);
    expect(said).toHaveLength(1);
  });

  it('activateWhenApproved activates a code issued without approval at once, saying nothing', async () => {
    const session = await browserSession(h);
    const issued = await h.client.issueInstallCode({ browserSession: session });
    const precheck = await h.client.precheck(precheckBody(issued.install_code));
    expect(precheck.approval).toBeUndefined();
    const said: string[] = [];
    const activation = await activateWhenApproved(
      h.client,
      precheck,
      activateBody(issued.install_code, precheck.precheck_token),
      { onWaiting: (m) => said.push(m) },
    );
    expect(activation.activation_id).toMatch(/^act_/);
    expect(said).toEqual([]);
  });
});
