import type { ActivateRequest, Activation, PrecheckResult, SlowdnsClient } from './client.js';
import { SlowdnsApiError } from './errors.js';
import { sleep } from './retry.js';

/** How long to wait when a 409 `approval_pending` carries no Retry-After (the service always sends one, at most 5). */
const DEFAULT_WAIT_SECONDS = 5;

/** The code expired (its precheck token with it) while its owner had not decided: no activate can succeed now. */
export class SlowdnsApprovalExpiredError extends Error {
  override readonly name = 'SlowdnsApprovalExpiredError';
  constructor(readonly installCodeHint: string) {
    super(
      `No decision came on the SlowDNS page before the install code ${installCodeHint} expired: ask for a new code and run again.`,
    );
  }
}

export interface ApprovalWaitOptions {
  /** Told once, when the wait starts. Default: `console.error`. */
  onWaiting?(message: string): void;
  /** Ends the wait between two tries (never a request on the wire). */
  signal?: AbortSignal;
  /**
   * Waits the `Retry-After` between two tries (rejecting when `signal` aborts). Default: a timer. For a
   * program with a scheduler or clock of its own, and for tests, which need not sit out real seconds.
   */
  sleep?(ms: number, signal: AbortSignal | undefined): Promise<void>;
}

/** What the installer says while it waits: who decides, and where (as activate.sh says it). */
function whoDecides(precheck: PrecheckResult): string {
  const hint = precheck.install_code_hint;
  return precheck.approval_by === 'operator'
    ? `Waiting for an operator to approve this machine (code ${hint}, precheck ${precheck.precheck_id}): in the service's console (/admin), or with: slowdns codes approve`
    : `Waiting for the person who got code ${hint} to approve this machine on the SlowDNS page (/slowdns)`;
}

/**
 * Activate, waiting while the person who got the code has not approved this precheck on the SlowDNS page
 * (409 `approval_pending`, DESIGN §14), or an operator a fleet code's (§22): says once who decides ("Waiting for
 * the person who got code SDNS-SD-…HX3W8N to approve this machine on the SlowDNS page (/slowdns)") and asks again after each `Retry-After`. The wait ends at the code's expiry at the
 * latest, as the service sees it (a new machine's own clock is often wrong): the precheck token never
 * outlives the code, and once the service refuses it the wait ends with `SlowdnsApprovalExpiredError`.
 * Denied: the service's 403 `approval_denied` is thrown as any refusal is. A code issued without
 * approval activates at once.
 */
export async function activateWhenApproved(
  client: SlowdnsClient,
  precheck: PrecheckResult,
  body: ActivateRequest,
  options: ApprovalWaitOptions = {},
): Promise<Activation> {
  let waiting = false;
  for (;;) {
    try {
      // Never aborted once sent: an activation made on the server but unknown here could not be released.
      return await client.activate(body);
    } catch (error) {
      if (!(error instanceof SlowdnsApiError)) throw error;
      if (waiting && (error.code === 'precheck_token_invalid' || error.code === 'install_code_expired'))
        throw new SlowdnsApprovalExpiredError(precheck.install_code_hint);
      // Only the wait's own pace (another copy polling with this token) is waited out, never another limit.
      const paced = waiting && error.code === 'rate_limit_exceeded' && error.message.includes('approval-wait');
      if (error.code !== 'approval_pending' && !paced) throw error;
      if (!waiting) (options.onWaiting ?? console.error)(whoDecides(precheck));
      waiting = true;
      await (options.sleep ?? sleep)(
        Math.max(1, error.retryAfterSeconds ?? DEFAULT_WAIT_SECONDS) * 1000,
        options.signal,
      );
    }
  }
}
