import { ACTIVATE, type ActivateParams } from './activate-statement.js';
import {
  type CreatedActivation,
  findRepeatedActivation,
  installTokenJtiFor,
  type NewActivation,
} from './activation-rows.js';
import { and, eq, getTableColumns } from 'drizzle-orm';
import { wholeSecond } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement } from '../../db/statement.js';
import { activations, installCodes } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { eventContextParams, noteRecorded, type ChangeContext, type EventType } from '../events/event-trail.js';
import { approvalPendingError, decidedPrecheck, decidedPrecheckOfCode } from '../install-codes/approval.js';
import { installCodeProblem } from '../install-codes/code-problem.js';
import {
  countedStatement,
  type BucketCount,
  type CountedOutcome,
  type StepAnswer,
  type RateLimitCheck,
} from '../rate-limits/limiter.js';
import { randomId, sha256Hex } from '../tokens/secret-hash.js';

/**
 * One statement: counts the activate in `limits` (an unusable code is counted too), the code goes
 * `issued` → `activated`, the activation is created with the jti of its single-use install token, and
 * both events are recorded. Exactly one of many concurrent activations of a code claims it; a repeat of
 * that one (same precheck token, same body) gets the same activation back while it can still be
 * confirmed (see findRepeatedActivation), every other one gets the error of the code as it is then.
 */
export async function createActivation(
  db: Database,
  {
    input,
    now,
    context,
    limits,
    tokenTtlSeconds,
    duplicatePolicy = 'flag',
    fleetCodeId,
  }: {
    input: NewActivation;
    now: Date;
    context: ChangeContext;
    limits: RateLimitCheck[];
    /** INSTALL_TOKEN_TTL_SECONDS. */
    tokenTtlSeconds: number;
    /** DUPLICATE_MACHINE_POLICY. */
    duplicatePolicy?: 'flag' | 'refuse';
    /** The id of the code when it has `uses` > 1 (DESIGN §22): a use is taken with the code's row locked. */
    fleetCodeId?: string | undefined;
  },
): Promise<CountedOutcome<CreatedActivation>> {
  const id = randomId('act_', 8);
  const installTokenJti = installTokenJtiFor(input.precheckJti, id);
  const installTokenJtiHash = sha256Hex(installTokenJti);
  const installTokenExpiresAt = new Date(wholeSecond(now).getTime() + tokenTtlSeconds * 1000);
  const precheckJtiHash = sha256Hex(input.precheckJti);
  const params: Omit<ActivateParams, 'buckets'> = {
    code_hash: input.codeHash,
    id,
    hostname: input.hostname,
    public_ip: input.publicIp,
    machine_id: input.machineId,
    ssh_fingerprint: input.sshFingerprint,
    ssh_key_proven: input.sshKeyProven,
    requested_ref: input.requestedRef,
    installer_version: input.installerVersion,
    install_token_jti_hash: installTokenJtiHash,
    install_token_expires_at: installTokenExpiresAt.toISOString(),
    precheck_jti_hash: precheckJtiHash,
    precheck_client_key_hash: input.precheckClientKeyHash ?? null,
    created_data: JSON.stringify({
      hostname: input.hostname,
      public_ip: input.publicIp,
      machine_id: input.machineId,
      ssh_key_proven: input.sshKeyProven,
      ...(input.identity ? { identity: { iss: input.identity.iss, sub: input.identity.sub } } : {}),
    }),
    claim_tags: JSON.stringify(input.identity?.tags ?? {}),
    refuse_duplicate: duplicatePolicy === 'refuse',
    precheck_id: input.precheckId ?? null,
    ...eventContextParams(context, now),
  };
  type Row = {
    counts: BucketCount[] | null;
    install_code_id: string | null;
    duplicate_of: string | null;
    tags: Record<string, string> | null;
    refused: boolean;
    recorded: EventType[] | null;
  };
  const claim = async (tx: Database) =>
    countedStatement(tx, limits, now, async (buckets) => {
      const [row] = await runStatement<Row, ActivateParams>(tx, ACTIVATE[fleetCodeId ? 'fleet' : 'single'], {
        buckets,
        ...params,
      });
      noteRecorded(context, row!.recorded);
      return { counts: row!.counts, value: row! };
    });
  const outcome = fleetCodeId
    ? await db.transaction(async (tx) => {
        // The code's row first: every activate of it waits here, so the claim that follows sees each use taken before it.
        await runStatement<Record<string, never>, { id: string }>(tx, LOCK_CODE, { id: fleetCodeId });
        // The count in a savepoint: a refusal by a limit undoes it alone, and the transaction reads the counts after.
        return countedStatement(tx, limits, now, async (buckets) =>
          tx.transaction(async (savepoint) => {
            const [row] = await runStatement<Row, ActivateParams>(savepoint, ACTIVATE.fleet, { buckets, ...params });
            noteRecorded(context, row!.recorded);
            return { counts: row!.counts, value: row! };
          }),
        );
      })
    : await claim(db);
  if (!outcome.decision.admitted) return { decision: outcome.decision };
  const row = outcome.value!;
  if (row.install_code_id) {
    return {
      decision: outcome.decision,
      // Named field by field (docs/development.md, "A spread goes last"): what the statement made, as its row would read.
      value: {
        id,
        installCodeId: row.install_code_id,
        status: 'activated',
        hostname: input.hostname,
        publicIp: input.publicIp,
        machineId: input.machineId,
        sshFingerprint: input.sshFingerprint,
        sshKeyProven: input.sshKeyProven,
        requestedRef: input.requestedRef,
        installerVersion: input.installerVersion,
        installTokenJtiHash,
        installTokenExpiresAt,
        installTokenUsedAt: null,
        precheckJtiHash,
        precheckClientKeyHash: input.precheckClientKeyHash ?? null,
        codeRestored: null,
        createdAt: now,
        confirmedAt: null,
        releasedAt: null,
        duplicateOf: row.duplicate_of,
        tags: row.tags ?? {},
        installTokenJti,
        duplicateDetected: row.duplicate_of !== null,
      },
    };
  }
  const unclaimed = fleetCodeId
    ? await unclaimedFleetActivation(db, fleetCodeId, input, now, row.refused)
    : await unclaimedActivation(db, input, now, row.refused);
  return unclaimed.refusal
    ? { decision: outcome.decision, refusal: unclaimed.refusal }
    : { decision: outcome.decision, value: unclaimed.value };
}

const LOCK_CODE = namedStatement<{ id: string }>('select from install_codes where id = :id for update');

/**
 * A code with `uses` > 1 took no use: a repeat of an activate of this precheck token (its activation back), or
 * why not: the code's own error, a precheck token that already made an activation, the duplicate machine
 * refused, or no use free.
 */
async function unclaimedFleetActivation(
  db: Database,
  codeId: string,
  input: NewActivation,
  now: Date,
  refusedDuplicate: boolean,
): Promise<StepAnswer<CreatedActivation>> {
  const [current] = await db.select().from(installCodes).where(eq(installCodes.id, codeId));
  const problem = installCodeProblem(current, now);
  const repeated = await findRepeatedActivation(db, codeId, input, now);
  if (repeated) return { value: { ...repeated, installTokenJti: installTokenJtiFor(input.precheckJti, repeated.id) } };
  if (problem) return { refusal: problem };
  const [made] = await db
    .select({ id: activations.id })
    .from(activations)
    .where(and(eq(activations.installCodeId, codeId), eq(activations.precheckJtiHash, sha256Hex(input.precheckJti))));
  if (made)
    return {
      refusal: new ApiError(
        'precheck_token_invalid',
        'This precheck token has already made an activation: run the precheck again for another.',
      ),
    };
  return { refusal: new ApiError(refusedDuplicate ? 'machine_duplicate' : 'install_code_exhausted') };
}

/** The code was not claimed: a repeat of the activate that claimed it, or the error of the code as it is now (read afresh). */
async function unclaimedActivation(
  db: Database,
  input: NewActivation,
  now: Date,
  refusedDuplicate: boolean,
): Promise<StepAnswer<CreatedActivation>> {
  const [current] = await db
    .select({
      ...getTableColumns(installCodes),
      decision: decidedPrecheck.decision,
      decidedPrecheckId: decidedPrecheck.id,
    })
    .from(installCodes)
    .leftJoin(decidedPrecheck, decidedPrecheckOfCode)
    .where(eq(installCodes.codeHash, input.codeHash));
  const repeated =
    current?.status === 'activated' ? await findRepeatedActivation(db, current.id, input, now) : undefined;
  if (repeated) return { value: { ...repeated, installTokenJti: installTokenJtiFor(input.precheckJti, repeated.id) } };
  const usable = current !== undefined && !installCodeProblem(current, now);
  // Usable but not approved for this precheck (the person has not decided, or a release asked again): §14.
  if (
    usable &&
    current.requireApproval &&
    !(current.decision === 'approved' && current.decidedPrecheckId === input.precheckId)
  ) {
    return { refusal: current.decision === 'approved' ? new ApiError('machine_mismatch') : approvalPendingError() };
  }
  // The code is still usable: the claim was held back by DUPLICATE_MACHINE_POLICY=refuse alone.
  if (refusedDuplicate && usable) return { refusal: new ApiError('machine_duplicate') };
  return { refusal: installCodeProblem(current, now) ?? new ApiError('install_code_unavailable') };
}
