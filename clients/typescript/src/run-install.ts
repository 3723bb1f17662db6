import { activateWhenApproved } from './approval-wait.js';
import type { Activation, ConfirmResult, InstallStatus, PrecheckResult, SlowdnsClient } from './client.js';
import type { InstallActivation, InstallStateStore } from './install-state.js';
import { releaseActivation, type ReleaseReport } from './release.js';
import { findResumption, type Resumption } from './resume.js';
import { proofFor, type InstallProofOptions } from './install-proof.js';
import { SlowdnsApiError } from './errors.js';
import { readIdentityToken, type IdentityEnrollment } from './identity-token-source.js';

/** `resume`: reading back the activation of an earlier run from `state`. */
export type InstallStage = 'resume' | 'precheck' | 'confirm_address' | 'activate' | 'install' | 'confirm';

/** What interrupted the run: a process signal, or the caller's AbortSignal. */
export type Interruption = NodeJS.Signals | 'aborted';

/** Given to the caller's steps: aborted when the run is interrupted, so long work can stop early. */
export interface StepContext {
  signal: AbortSignal;
}

export interface MachineIdentity {
  /** Contents of /etc/machine-id. */
  machine_id: string;
  /** The SSH host key fingerprint as `ssh-keygen -lf` prints it: `SHA256:…`. */
  ssh_fingerprint: string;
}

export interface ConfirmedAddress {
  hostname: string;
  public_ip: string;
}

export interface InstallStepContext extends StepContext {
  /**
   * Set when this run resumed the activation of an earlier one (the install step runs again): the
   * install as the service answered then, e.g. `server_registered`.
   */
  resumed?: InstallStatus;
}

export interface RunInstallOptions extends InstallProofOptions {
  client: SlowdnsClient;
  /**
   * The install code as the person typed it (case, spaces and look-alikes are forgiven by the service),
   * or a function that asks for it: called only when a new flow starts, never when a run resumes.
   * Give this or `identity`, not both.
   */
  installCode?: string | (() => string | Promise<string>);
  /**
   * For a code made with `trust` (DESIGN §25), which has no secret: its id and where the platform's signed
   * identity token comes from, read when a new flow starts (precheck); activate sends the id alone.
   * Give this or `installCode`, not both.
   */
  identity?: IdentityEnrollment;
  machine: MachineIdentity;
  installerVersion: string;
  /** The software ref to install, e.g. `main`. */
  requestedRef: string;
  /** Collects the final hostname and public IP and has the operator confirm them. Runs after a successful precheck. */
  confirmAddress(precheck: PrecheckResult, context: StepContext): Promise<ConfirmedAddress>;
  /**
   * Installs and starts everything; resolves once every service is active. Throwing fails the run (and
   * releases). Runs again when a run resumes (`context.resumed` is set): make it safe to run twice.
   */
  install(activation: InstallActivation, context: InstallStepContext): Promise<void>;
  /**
   * Where the activation is kept between runs (`fileStateStore(path)`, or a store of your own), so that a
   * rerun after a crash resumes, with the shell client's rules: an activation waiting for confirm with a
   * valid install token → the install step again, then confirm (no code, precheck or address asked);
   * confirmed → `confirmed` at once; token expired → released, then a new flow; released or unknown to
   * the service → forgotten, then a new flow. Saved right after activate, kept after confirm, cleared
   * after a release.
   */
  state?: InstallStateStore;
  /**
   * Process signals that interrupt the run; listeners are installed for the run only and removed
   * after it. Default `['SIGINT', 'SIGTERM']`; `[]` installs none (e.g. when the caller handles signals
   * itself and passes `signal`).
   */
  signals?: readonly NodeJS.Signals[];
  /**
   * What happens after a process signal interrupted the run and release was attempted.
   * `'reraise'` (default): the listeners are removed and the signal is sent to this process again, so
   * it ends the way it would have without runInstall (exit by SIGINT/SIGTERM, status 130/143 in a shell).
   * `'return'`: runInstall resolves with the `interrupted` result and the caller decides.
   */
  onSignal?: 'reraise' | 'return';
  /** Aborting it interrupts the run like a signal, but never re-raises anything. */
  signal?: AbortSignal;
  /** Release gets this long before it is given up on (a hung network must not keep a SIGTERM waiting). Default 10 s. */
  releaseTimeoutMs?: number;
  /**
   * Told once when the code waits for its owner's approval on the SlowDNS page (DESIGN §14): "Waiting for
   * approval on the SlowDNS page (code SDNS-SD-…HX3W8N)". Default: `console.error`. The run waits up to
   * the code's expiry as the service sees it (then fails at `activate` with `SlowdnsApprovalExpiredError`); denied, it fails with
   * the service's 403 `approval_denied`.
   */
  onApprovalWaiting?(message: string): void;
  /** Waits between two tries while the code waits for approval (`ApprovalWaitOptions.sleep`). Default: a timer. */
  approvalSleep?(ms: number, signal: AbortSignal | undefined): Promise<void>;
  /** Called with the release outcome before runInstall returns or re-raises: the place to tell the operator. */
  onRelease?(report: ReleaseReport): void;
}

export type { ReleaseReport };

export type InstallResult =
  | { outcome: 'confirmed'; precheck: PrecheckResult; activation: Activation; confirmation: ConfirmResult }
  /** A resumed run: `resumed` is the install as the service answered it at the start of this run. */
  | { outcome: 'confirmed'; resumed: InstallStatus; activation: InstallActivation; confirmation: ConfirmResult }
  | {
      outcome: 'failed';
      stage: InstallStage;
      error: unknown;
      activation?: InstallActivation;
      /** Absent when nothing was activated: the code was never taken, so there was nothing to release. */
      release?: ReleaseReport;
      resumed?: InstallStatus;
    }
  | {
      outcome: 'interrupted';
      stage: InstallStage;
      reason: Interruption;
      activation?: InstallActivation;
      release?: ReleaseReport;
      resumed?: InstallStatus;
    };

/** Thrown into the steps' race when the run is interrupted; never escapes runInstall. */
class Interrupted extends Error {
  constructor(readonly reason: Interruption) {
    super(`interrupted by ${reason}`);
  }
}

/**
 * The reference installer flow: precheck → confirm hostname and IP → activate → install → confirm,
 * or, with `state` holding an earlier run's activation, what the shell client does on a rerun (resume.ts).
 * Any failure or interruption after activate and before confirm releases the activation (the
 * seed's exit handler), so the code can be used again when the service could restore it.
 *
 * On an interruption the caller's running step is not waited for (it gets an aborted signal);
 * a request to activate or confirm already on the wire is, because its outcome decides whether there
 * is something to release. Never rejects: every outcome is in the result.
 */
export async function runInstall(options: RunInstallOptions): Promise<InstallResult> {
  const { client, machine } = options;
  const signals = options.signals ?? ['SIGINT', 'SIGTERM'];
  const steps = new AbortController();
  let interruption: Interruption | undefined;
  let signalInterrupt: () => void = () => {};
  const interrupted = new Promise<never>((_, reject) => {
    signalInterrupt = () => reject(new Interrupted(interruption!));
  });
  interrupted.catch(() => {}); // observed through the races below, or not at all
  const interrupt = (reason: Interruption) => {
    if (interruption) return; // a second Ctrl-C while releasing changes nothing
    interruption = reason;
    steps.abort(new Interrupted(reason));
    signalInterrupt();
  };

  const listeners = signals.map((name) => [name, () => interrupt(name)] as const);
  for (const [name, listener] of listeners) process.on(name, listener);
  const onAbort = () => interrupt('aborted');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  const stopListening = () => {
    for (const [name, listener] of listeners) process.off(name, listener);
    options.signal?.removeEventListener('abort', onAbort);
  };

  /** A caller's step, or a request that changes nothing, given up on as soon as the run is interrupted. */
  const interruptible = <T>(work: () => Promise<T>): Promise<T> => {
    if (interruption) return Promise.reject(new Interrupted(interruption));
    const running = work();
    running.catch(() => {}); // its late failure after an interruption is of no interest
    return Promise.race([running, interrupted]);
  };
  const context: StepContext = { signal: steps.signal };

  const { state } = options;
  const releaseTimeoutMs = options.releaseTimeoutMs ?? 10_000;
  let stage: InstallStage = 'resume';
  let resumed: InstallStatus | undefined;
  let activation: InstallActivation | undefined;
  let result: InstallResult;

  /** precheck → confirm address → activate: a new activation of the install code. */
  const activateNew = async (): Promise<{ precheck: PrecheckResult; activation: Activation }> => {
    stage = 'precheck';
    const form = await interruptible(() => codeForm(options));
    const precheck = await interruptible(() =>
      client.precheck(
        { ...form.precheck, ...machine, product: 'slowdns', installer_version: options.installerVersion },
        { signal: steps.signal },
      ),
    );
    stage = 'confirm_address';
    const address = await interruptible(() => options.confirmAddress(precheck, context));
    stage = 'activate';
    if (interruption) throw new Interrupted(interruption);
    // Not interruptible while a request is on the wire: an activation created on the server but unknown here
    // could not be released. The wait for the person's approval between two tries is.
    const body = {
      ...form.activate,
      precheck_token: precheck.precheck_token,
      hostname: address.hostname,
      public_ip: address.public_ip,
      ...machine,
      requested_ref: options.requestedRef,
      installer_version: options.installerVersion,
    };
    const waitOptions = {
      signal: steps.signal,
      ...(options.onApprovalWaiting ? { onWaiting: options.onApprovalWaiting } : {}),
      ...(options.approvalSleep ? { sleep: options.approvalSleep } : {}),
    };
    // The machine proves its SSH host key whenever it can (DESIGN §24).
    const proof = await proofFor({ ...options, baseUrl: client.baseUrl }, precheck, body);
    try {
      return { precheck, activation: await activateWhenApproved(client, precheck, { ...body, ...proof }, waitOptions) };
    } catch (error) {
      const refused = error instanceof SlowdnsApiError && error.code === 'machine_proof_invalid';
      if (!proof || !refused || precheck.machine_proof === 'required') throw error;
      // Optional here: a proof the service does not take (baseUrl not its public address?) costs no install.
      (options.onProofSkipped ?? console.error)(
        `The service did not accept this machine's SSH host-key proof (is ${client.baseUrl} its own public address?): going on unproven.`,
      );
      return { precheck, activation: await activateWhenApproved(client, precheck, body, waitOptions) };
    }
  };

  try {
    const resumption: Resumption = state
      ? await findResumption(client, state, { signal: steps.signal, releaseTimeoutMs, interruptible })
      : { next: 'new_flow' };
    if (resumption.next === 'done') {
      resumed = resumption.status;
      activation = resumption.activation;
      // A confirmed activation's status carries its receipt (null only for one that is not confirmed).
      result = {
        outcome: 'confirmed',
        resumed,
        activation,
        confirmation: {
          activation_id: activation.activation_id,
          status: 'confirmed',
          receipt: resumption.status.receipt ?? '',
        },
      };
    } else {
      let fresh: { precheck: PrecheckResult; activation: Activation } | undefined;
      if (resumption.next === 'install') {
        resumed = resumption.status;
        activation = resumption.activation;
      } else {
        fresh = await activateNew();
        activation = fresh.activation;
        // Kept before the install step starts: a crash from here on is resumed by the next run.
        await state?.save?.({ activation_id: activation.activation_id, install_token: activation.install_token });
      }
      stage = 'install';
      const activated = activation;
      const installContext: InstallStepContext = resumed ? { ...context, resumed } : context;
      await interruptible(() => options.install(activated, installContext));
      stage = 'confirm';
      if (interruption) throw new Interrupted(interruption);
      // Not interruptible either: once confirm is sent, its answer decides between done and release.
      const confirmation = await client.confirm({
        activation_id: activation.activation_id,
        install_token: activation.install_token,
      });
      result = fresh
        ? { outcome: 'confirmed', ...fresh, confirmation }
        : { outcome: 'confirmed', resumed: resumed!, activation, confirmation };
    }
  } catch (error) {
    const release = activation ? await releaseActivation(client, activation, releaseTimeoutMs) : undefined;
    if (release?.released) {
      try {
        await state?.clear?.();
      } catch {
        // The next run reads the released activation back and forgets it.
      }
    }
    if (release) {
      try {
        options.onRelease?.(release);
      } catch {
        // A failing report must not keep the run from ending (or a signal from being re-raised).
      }
    }
    const base = {
      stage,
      ...(activation ? { activation } : {}),
      ...(release ? { release } : {}),
      ...(resumed ? { resumed } : {}),
    };
    result =
      error instanceof Interrupted
        ? { outcome: 'interrupted', reason: error.reason, ...base }
        : { outcome: 'failed', error, ...base };
  } finally {
    stopListening();
  }

  // Checked after the run, not in the catch: a signal that arrives while confirm is on the wire
  // lets it finish, and still ends the process afterwards.
  const reason = interruption;
  if (reason && reason !== 'aborted' && (options.onSignal ?? 'reraise') === 'reraise') {
    // Our listeners are gone: with no other listener the default action ends the process here.
    process.kill(process.pid, reason);
  }
  return result;
}

type CodeForm =
  | { precheck: { install_code: string }; activate: { install_code: string } }
  | {
      precheck: { install_code_id: string; identity_token: string };
      activate: { install_code_id: string };
    };

/** The code as precheck and activate send it: the install code, or the code's id with the identity token (DESIGN §25). */
async function codeForm({ installCode, identity }: RunInstallOptions): Promise<CodeForm> {
  if ((installCode === undefined) === (identity === undefined))
    throw new TypeError('runInstall needs installCode or identity, and not both');
  if (identity) {
    const identity_token = await readIdentityToken(identity);
    return {
      precheck: { install_code_id: identity.installCodeId, identity_token },
      activate: { install_code_id: identity.installCodeId },
    };
  }
  const code = typeof installCode === 'string' ? installCode : await installCode!();
  return { precheck: { install_code: code }, activate: { install_code: code } };
}
