import type { Database } from '../../db/database.js';
import { ApiError } from '../../errors.js';
import type { CreatedActivation, MachineBinding } from './activation-rows.js';
import { createActivation } from './create-activation.js';
import type { ChangeContext } from '../events/event-trail.js';
import { approvalPendingError } from '../install-codes/approval.js';
import { approvalProblem } from '../install-codes/approval-gate.js';
import { assertInstallerSupported } from './installer-version.js';
import {
  addressProblem,
  codeFormProblem,
  hostnameProblem,
  limitsFor,
  readCodeBinding,
} from '../install-codes/fleet-binding.js';
import { type CountedOutcome, consumeRateLimits, type RateLimitCheck, senderChecks } from '../rate-limits/limiter.js';
import type { KeyedHashes } from '../tokens/keyed-hashes.js';
import { approvalWaitPolicy, secondsToBucketEnd } from '../rate-limits/policies.js';
import type { KeyRing } from '../tokens/signing-keys.js';
import { type PrecheckClaims, verifyPrecheckToken } from '../tokens/install-step-tokens.js';
import { identityLimits, readTrustCode } from '../identity/identity-precheck.js';
import {
  machineProofRequired,
  MachineProofRefused,
  provenAtActivate,
  recordRefusedProof,
  type MachineProofPolicy,
  type ProvingActivate,
} from '../machine-proof/activate-proof.js';

/** What an installer's activate presents: the code (normalised), its precheck token, and the machine it confirmed. */
export interface ActivateRequest extends MachineBinding, Omit<ProvingActivate, 'sshFingerprint'> {
  /** The code as sent (normalised), or its id after an identity precheck (DESIGN §25). */
  code: { installCode: string } | { installCodeId: string };
  precheckToken: string;
  requestedRef: string;
  installerVersion: string;
  /** The address the service observed (after TRUST_PROXY); null when it could not tell. */
  observedIp: string | null;
}

/** The service's settings that activate follows. */
export interface ActivateRules {
  /** MIN_INSTALLER_VERSION. */
  minInstallerVersion: string | undefined;
  /** INSTALL_TOKEN_TTL_SECONDS. */
  installTokenTtlSeconds: number;
  /** DUPLICATE_MACHINE_POLICY. */
  duplicateMachinePolicy: 'flag' | 'refuse';
  /** MACHINE_PROOF. */
  machineProof: MachineProofPolicy;
  /** PUBLIC_BASE_URL: its origin is what a machine proof names as the service. */
  publicBaseUrl: URL;
}

/**
 * Activate's order of checks (DESIGN §4, §6, §14), one decision each, the first that refuses answers:
 * 1. the installer version (426 `installer_outdated`: nothing counted);
 * 2. the precheck token's signature and claims, then the machine proof (DESIGN §24: 403 `machine_proof_invalid`,
 *    or `machine_proof_required` without one under MACHINE_PROOF=required), without the database; a refusal is
 *    counted in the limits of the sender alone (`senderChecks`: the machine's budget is spent only by a token made
 *    for that machine), so a sender over its IP limit gets 429 before the 401 or 403; a failed proof's check is
 *    recorded (`install_code.machine_proof_refused`);
 * 3. a token of a code issued with approval meets the person's decision before anything else is counted:
 *    waiting, only the approval-wait bucket of this token (409 `approval_pending`, or 429 faster than one
 *    per bucket); approved for another precheck, or a precheck a release forgot, refused as a bad token is;
 * 4. a code an operator bound (DESIGN §22) meets its binding: the address (403 `install_code_address_not_allowed`),
 *    the host name (403 `install_code_hostname_not_allowed`), its `require_machine_proof` (403
 *    `machine_proof_required`), counted in the sender's limits; inside its own
 *    `allowed_cidrs`, a code with `uses` > 1 counts in its own bucket instead of the per-address limits;
 * 5. then one statement counts the request in every limit and claims the code (`createActivation`); a code with
 *    `uses` > 1 meets the operator's decision on this precheck first (`approvalProblem`) and takes one use.
 * Answers as a counted statement does: the limits' decision (for the headers, or 429), and the activation
 * or its refusal.
 */
export async function activateInstallCode(
  db: Database,
  {
    request,
    now,
    context,
    limits,
    hashes,
    keys,
    rules,
  }: {
    request: ActivateRequest;
    now: Date;
    context: ChangeContext;
    /** Every limit of activate (per IP and per machine); the bad-token paths count only the sender's. */
    limits: RateLimitCheck[];
    /** How the code is kept, and how the approval wait's bucket hashes its subject (the precheck token's jti), as `limits` were hashed. */
    hashes: KeyedHashes;
    keys: KeyRing;
    rules: ActivateRules;
  },
): Promise<CountedOutcome<CreatedActivation>> {
  assertInstallerSupported(request.installerVersion, rules.minInstallerVersion);
  const sent = request.code;
  const identityForm = 'installCodeId' in sent;
  let codeHash = identityForm ? '' : hashes.installCode(sent.installCode);
  let precheck: AdmittingPrecheck;
  let proven: boolean;
  try {
    if (identityForm) codeHash = (await readTrustCode(db, sent.installCodeId)).codeHash;
    precheck = await admittingPrecheck(keys, request, codeHash, now);
    proven = provenAtActivate(
      { ...request, sshFingerprint: precheck.sshFingerprint },
      { challenge: precheck.challenge, origin: rules.publicBaseUrl.origin, policy: rules.machineProof },
    );
  } catch (refusal) {
    const outcome = await refusedAfterCounting(db, senderChecks(limits), now, refusal);
    if (outcome.refusal instanceof MachineProofRefused)
      await recordRefusedProof(db, { refusal: outcome.refusal, codeHash, ...request, context, now });
    return outcome;
  }
  const binding = await readCodeBinding(db, { canonical: identityForm ? undefined : sent.installCode, hash: codeHash });
  const checks =
    identityForm && binding
      ? identityLimits(limits, binding, 'activate', hashes)
      : limitsFor({ binding, observedIp: request.observedIp, route: 'activate', checks: limits, hashes });
  const bindingRefusal =
    (identityForm ? undefined : codeFormProblem(binding)) ??
    addressProblem(binding, request.observedIp) ??
    hostnameProblem(binding, request.hostname) ??
    (binding?.requireMachineProof && !proven ? machineProofRequired() : undefined);
  if (bindingRefusal) return refusedAfterCounting(db, senderChecks(checks), now, bindingRefusal);
  const fleetCodeId = binding && binding.uses > 1 ? binding.id : undefined;
  const approval = await approvalProblem(
    db,
    { codeHash, precheckId: precheck.precheckId, uses: binding?.uses ?? 1 },
    now,
  );
  if (approval?.code === 'approval_pending') return approvalWait(db, hashes, precheck.jti, now);
  if (approval) return refusedAfterCounting(db, senderChecks(checks), now, approval);
  return createActivation(db, {
    input: {
      codeHash,
      precheckJti: precheck.jti,
      precheckId: precheck.precheckId,
      precheckClientKeyHash: precheck.clientKeyHash,
      hostname: request.hostname,
      publicIp: request.publicIp,
      machineId: request.machineId,
      sshFingerprint: request.sshFingerprint,
      sshKeyProven: proven,
      identity: precheck.identity,
      requestedRef: request.requestedRef,
      installerVersion: request.installerVersion,
    },
    now,
    context,
    limits: checks,
    tokenTtlSeconds: rules.installTokenTtlSeconds,
    duplicatePolicy: rules.duplicateMachinePolicy,
    fleetCodeId,
  });
}

/** Waiting for a decision: only the approval-wait bucket of this precheck token (409 `approval_pending`, or 429 faster than one per bucket). */
function approvalWait(
  db: Database,
  hashes: KeyedHashes,
  precheckJti: string,
  now: Date,
): Promise<CountedOutcome<never>> {
  const wait = [
    {
      policy: approvalWaitPolicy,
      subject: precheckJti,
      subjectHash: hashes.rateLimitSubject(approvalWaitPolicy.name, precheckJti),
      quota: approvalWaitPolicy.quota,
    },
  ];
  return refusedAfterCounting(
    db,
    wait,
    now,
    approvalPendingError(secondsToBucketEnd(now, approvalWaitPolicy.windowSeconds)),
  );
}

/**
 * Counts the request in `checks` alone (a statement of its own), and refuses it with `refusal` when admitted: a
 * refusal found before the step's own counting statement is counted all the same (DESIGN §6). Anything thrown
 * that is not a refusal is not counted: it goes on up.
 */
async function refusedAfterCounting(
  db: Database,
  checks: RateLimitCheck[],
  now: Date,
  refusal: unknown,
): Promise<CountedOutcome<never>> {
  if (!(refusal instanceof ApiError)) throw refusal;
  const decision = await consumeRateLimits(db, checks, now);
  return decision.admitted ? { decision, refusal } : { decision };
}

interface AdmittingPrecheck {
  jti: string;
  precheckId: string | undefined;
  sshFingerprint: string;
  /** The challenge a machine proof signs (`pch`); tokens made before machine proofs have none. */
  challenge: string | undefined;
  clientKeyHash: string | undefined;
  /** Made by an identity precheck (DESIGN §25): whom its token named, and the tags taken from its claims. */
  identity: PrecheckClaims['identity'];
}

/** The precheck token's jti when it admits this activate; checked without the database. Refuses with 401 or 403. */
async function admittingPrecheck(
  keys: KeyRing,
  request: ActivateRequest,
  codeHash: string,
  now: Date,
): Promise<AdmittingPrecheck> {
  const precheck = await verifyPrecheckToken(keys, request.precheckToken, now);
  if ('installCodeId' in request.code && precheck.identity === undefined)
    throw new ApiError(
      'precheck_token_invalid',
      'A code named by its id activates only with the precheck token of an identity precheck (install_code_id with identity_token).',
    );
  if (precheck.codeHash !== codeHash)
    throw new ApiError(
      'precheck_token_invalid',
      'This precheck token was made for another install code; run the precheck again.',
    );
  if (precheck.machineId !== request.machineId || precheck.sshFingerprint !== request.sshFingerprint)
    throw new ApiError('machine_mismatch');
  return {
    jti: precheck.jti,
    precheckId: precheck.precheckId,
    sshFingerprint: precheck.sshFingerprint,
    challenge: precheck.challenge,
    clientKeyHash: precheck.clientKeyHash,
    identity: precheck.identity,
  };
}
