import { and, eq, gt, isNull } from 'drizzle-orm';
import { wholeSecond } from '../clock.js';
import type { Database } from '../db/client.js';
import { namedStatement } from '../db/named-statement.js';
import { runStatement } from '../db/statement.js';
import { activations, installCodes } from '../db/schema.js';
import { ApiError } from '../errors.js';
import {
  EVENT_CONTEXT_COLUMNS,
  EVENT_CONTEXT_VALUES,
  eventContextParams,
  noteRecorded,
  operatorEventData,
  RECORDED_COLUMN,
  type ChangeContext,
  type EventContextParams,
  type EventType,
} from './events.js';
import { approvalPendingError } from './install-code-approval.js';
import { installCodeProblem } from './install-codes.js';
import { HELD_USES } from './operator-code-uses.js';
import {
  COUNTED_CTE,
  COUNTS_COLUMN,
  countedStatement,
  type BucketCount,
  type BucketsParam,
  type CountedOutcome,
  type RateLimitCheck,
} from './rate-limits/limiter.js';
import { assertReleaseProof, type ReleaseProof } from './release-proof.js';
import { randomId, sha256Hex } from './secret-hash.js';
import type { ConfirmedInstall } from './receipts.js';
import { assertInstallTokenJti } from './tokens.js';

export type ActivationRow = typeof activations.$inferSelect;

export interface MachineBinding {
  hostname: string;
  publicIp: string;
  machineId: string;
  sshFingerprint: string;
}

export interface NewActivation extends MachineBinding {
  codeHash: string;
  /** The jti of the precheck token presented. */
  precheckJti: string;
  /** The precheck id its token carries (a code issued with approval): the claim needs the code approved for it. */
  precheckId?: string | undefined;
  requestedRef: string;
  installerVersion: string;
}

/**
 * A new (or repeated) activation, with the jti its install token is signed with: in clear only here, the
 * row keeps its hash. `duplicateDetected`: this activate made it and found its identity in use (§16).
 */
export type CreatedActivation = ActivationRow & { installTokenJti: string; duplicateDetected?: boolean };

/**
 * The install token's jti, derived from the precheck token's own jti and the activation id: a repeated
 * activate (same precheck token) signs the same jti again, yet the database, which keeps only hashes of
 * both jtis, cannot rebuild it.
 */
function installTokenJtiFor(precheckJti: string, activationId: string): string {
  return sha256Hex(`slowdns install-token jti\0${precheckJti}\0${activationId}`);
}

// `duplicate`: the install this machine's identity is bound to already (DESIGN §16): its machine_id with
// another ssh_fingerprint, or its ssh_fingerprint with another machine_id (a cloned image), held by an
// activation that is confirmed (its server, if any, not revoked) or has a live server. A machine_id match
// is preferred, then the newest. A released activation, or the same machine again (same pair), is none.
// `refused` (DUPLICATE_MACHINE_POLICY=refuse, a machine_id match): the earliest claim of a machine_id wins (DESIGN §23).
// A machine_id is no secret, so a stranger can claim one with a key of its own; but it learns the id only from an
// install of the real machine, whose pair (this machine_id, its key) was then seen first: a pair seen before the
// holder's pair ever was is not refused, only flagged. A clone, never seen before the holder, still is.
// `:refuse_duplicate` refuses a machine_id duplicate (DUPLICATE_MACHINE_POLICY=refuse); `:precheck_id` is the
// token's (a code issued with approval is claimed only once the person approved that precheck).
type ActivateParams = BucketsParam &
  EventContextParams & {
    code_hash: string;
    id: string;
    hostname: string;
    public_ip: string;
    machine_id: string;
    ssh_fingerprint: string;
    requested_ref: string;
    installer_version: string;
    install_token_jti_hash: string;
    install_token_expires_at: string;
    precheck_jti_hash: string | null;
    /** The data of `activation.created`. */
    created_data: string;
    refuse_duplicate: boolean;
    precheck_id: string | null;
  };

/**
 * The claim of a code: a page code (and an operator's `uses: 1` code) goes `issued` → `activated`, its event
 * `install_code.activated`; a code with `uses` > 1 (DESIGN §22) stays `issued` and takes a use while one is free
 * (its row is locked first, so this statement sees every use taken before it) and the precheck token has made no
 * activation yet, its event `install_code.exhausted` when it took the last free use. Either returns `id`, `tags`
 * and `code_event` (whether its event is due).
 */
const CLAIMS = {
  single: `update install_codes set status = 'activated', last_used_at = :now::timestamptz
    where code_hash = :code_hash and status = 'issued' and uses = 1 and expires_at > :now::timestamptz
    and (approval is null or (approval = 'approved' and approval_precheck_id = :precheck_id))
    and not (select refused from refused) returning id, tags, true as code_event`,
  fleet: `update install_codes set last_used_at = :now::timestamptz
    where code_hash = :code_hash and status = 'issued' and uses > 1 and expires_at > :now::timestamptz
    and uses_spent + ${HELD_USES} < uses
    and not exists (select from activations p where p.install_code_id = install_codes.id and p.precheck_jti_hash = :precheck_jti_hash)
    and not (select refused from refused)
    returning id, tags, uses_spent + ${HELD_USES} + 1 >= uses as code_event`,
} as const;

const CODE_EVENTS = { single: 'install_code.activated', fleet: 'install_code.exhausted' } as const;

function activateStatement(claim: keyof typeof CLAIMS) {
  return namedStatement<ActivateParams>(`with ${COUNTED_CTE},
duplicate as (
  select a.id, a.machine_id = :machine_id as machine_match, a.ssh_fingerprint from activations a left join servers s on s.activation_id = a.id
  where ((a.machine_id = :machine_id and a.ssh_fingerprint <> :ssh_fingerprint) or (a.ssh_fingerprint = :ssh_fingerprint and a.machine_id <> :machine_id))
    and (s.status = 'active' or (a.status = 'confirmed' and s.id is null))
  order by (a.machine_id = :machine_id) desc, a.created_at desc limit 1),
refused as (
  select :refuse_duplicate::boolean and exists (select 1 from duplicate d where d.machine_match and not exists (
    select 1 from activations mine where mine.machine_id = :machine_id and mine.ssh_fingerprint = :ssh_fingerprint and mine.created_at < (
      select min(h.created_at) from activations h where h.machine_id = :machine_id and h.ssh_fingerprint = d.ssh_fingerprint))) as refused),
claimed as (
  ${CLAIMS[claim]}),
created as (
  insert into activations (id, install_code_id, status, hostname, public_ip, machine_id, ssh_fingerprint, requested_ref, installer_version,
    install_token_jti_hash, install_token_expires_at, precheck_jti_hash, created_at, duplicate_of, tags)
  select :id, claimed.id, 'activated', :hostname, :public_ip, :machine_id, :ssh_fingerprint, :requested_ref, :installer_version, :install_token_jti_hash, :install_token_expires_at::timestamptz, :precheck_jti_hash, :now::timestamptz, (select id from duplicate), claimed.tags from claimed
  returning id, install_code_id, duplicate_of, tags),
recorded as (
  insert into events (type, install_code_id, activation_id, data, ${EVENT_CONTEXT_COLUMNS})
  select e.type, created.install_code_id, created.id,
    coalesce(
      case when e.n = 2 and created.tags <> '{}'::jsonb then e.data || jsonb_build_object('tags', created.tags) else e.data end,
      jsonb_build_object('duplicate_of', d.id, 'match', case when d.machine_match then 'machine_id' else 'ssh_fingerprint' end)),
    ${EVENT_CONTEXT_VALUES}
  from created cross join claimed cross join (
    values (1, '${CODE_EVENTS[claim]}', '{}'::jsonb), (2, 'activation.created', :created_data::jsonb), (3, 'activation.duplicate_detected', null)
  ) as e(n, type, data)
  left join duplicate d on e.n = 3
  where (e.n = 1 and claimed.code_event) or e.n = 2 or d.id is not null
  order by e.n
  returning type)
select ${COUNTS_COLUMN}, ${RECORDED_COLUMN}, (select install_code_id from created) as install_code_id, (select duplicate_of from created) as duplicate_of,
  (select tags from created) as tags, (select refused from refused) as refused`);
}

const ACTIVATE = { single: activateStatement('single'), fleet: activateStatement('fleet') };

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
): Promise<CountedOutcome<CreatedActivation | ApiError>> {
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
    requested_ref: input.requestedRef,
    installer_version: input.installerVersion,
    install_token_jti_hash: installTokenJtiHash,
    install_token_expires_at: installTokenExpiresAt.toISOString(),
    precheck_jti_hash: precheckJtiHash,
    created_data: JSON.stringify({ hostname: input.hostname, public_ip: input.publicIp, machine_id: input.machineId }),
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
        requestedRef: input.requestedRef,
        installerVersion: input.installerVersion,
        installTokenJtiHash,
        installTokenExpiresAt,
        installTokenUsedAt: null,
        precheckJtiHash,
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
  return { decision: outcome.decision, value: unclaimed };
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
): Promise<CreatedActivation | ApiError> {
  const [current] = await db.select().from(installCodes).where(eq(installCodes.id, codeId));
  const problem = installCodeProblem(current, now);
  const repeated = await findRepeatedActivation(db, codeId, input, now);
  if (repeated) return { ...repeated, installTokenJti: installTokenJtiFor(input.precheckJti, repeated.id) };
  if (problem) return problem;
  const [made] = await db
    .select({ id: activations.id })
    .from(activations)
    .where(and(eq(activations.installCodeId, codeId), eq(activations.precheckJtiHash, sha256Hex(input.precheckJti))));
  if (made)
    return new ApiError(
      'precheck_token_invalid',
      'This precheck token has already made an activation: run the precheck again for another.',
    );
  if (refusedDuplicate) return new ApiError('machine_duplicate');
  return new ApiError('install_code_exhausted');
}

/** The code was not claimed: a repeat of the activate that claimed it, or the error of the code as it is now (read afresh). */
async function unclaimedActivation(
  db: Database,
  input: NewActivation,
  now: Date,
  refusedDuplicate: boolean,
): Promise<CreatedActivation | ApiError> {
  const [current] = await db.select().from(installCodes).where(eq(installCodes.codeHash, input.codeHash));
  const repeated =
    current?.status === 'activated' ? await findRepeatedActivation(db, current.id, input, now) : undefined;
  if (repeated) return { ...repeated, installTokenJti: installTokenJtiFor(input.precheckJti, repeated.id) };
  const usable = current !== undefined && !installCodeProblem(current, now);
  // Usable but not approved for this precheck (the person has not decided, or a release asked again): §14.
  if (
    usable &&
    current.approval !== null &&
    !(current.approval === 'approved' && current.approvalPrecheckId === input.precheckId)
  ) {
    return current.approval === 'approved' ? new ApiError('machine_mismatch') : approvalPendingError();
  }
  // The code is still usable: the claim was held back by DUPLICATE_MACHINE_POLICY=refuse alone.
  if (refusedDuplicate && usable) return new ApiError('machine_duplicate');
  return installCodeProblem(current, now) ?? new ApiError('install_code_unavailable');
}

/** The install token is neither consumed nor expired: the first condition for restoring the code on release. */
export function installTokenUsable(activation: ActivationRow, now: Date): boolean {
  return activation.installTokenUsedAt === null && activation.installTokenExpiresAt.getTime() > now.getTime();
}

/**
 * The activation that this same activate made before (an installer retrying after a lost answer): same
 * code, same precheck token, same body, and still unconfirmed, unreleased and with its install token
 * unused and unexpired. Read with a lock, so a confirm or release in progress is waited for: it is
 * either before the read (and no activation is handed out again) or after it.
 */
async function findRepeatedActivation(
  tx: Database,
  installCodeId: string,
  input: NewActivation,
  now: Date,
): Promise<ActivationRow | undefined> {
  const [row] = await tx
    .select()
    .from(activations)
    .where(
      and(
        eq(activations.installCodeId, installCodeId),
        eq(activations.precheckJtiHash, sha256Hex(input.precheckJti)),
        eq(activations.status, 'activated'),
        isNull(activations.installTokenUsedAt),
        gt(activations.installTokenExpiresAt, now),
        eq(activations.hostname, input.hostname),
        eq(activations.publicIp, input.publicIp),
        eq(activations.machineId, input.machineId),
        eq(activations.sshFingerprint, input.sshFingerprint),
        eq(activations.requestedRef, input.requestedRef),
        eq(activations.installerVersion, input.installerVersion),
      ),
    )
    .for('update');
  return row;
}

async function findActivation(db: Database, activationId: string): Promise<ActivationRow> {
  const [row] = await db.select().from(activations).where(eq(activations.id, activationId));
  if (!row) throw new ApiError('activation_not_found');
  return row;
}

type ConfirmParams = EventContextParams & { activation_id: string; install_token_jti_hash: string };

const CONFIRM = namedStatement<ConfirmParams>(`with confirmed as (
  update activations set status = 'confirmed', install_token_used_at = :now::timestamptz, confirmed_at = :now::timestamptz
  where id = :activation_id and install_token_jti_hash = :install_token_jti_hash and status = 'activated' and install_token_used_at is null and install_token_expires_at > :now::timestamptz
  returning id, install_code_id, hostname, public_ip, machine_id, ssh_fingerprint, requested_ref, installer_version, tags),
-- A code with uses > 1 stays issued: confirm spends the use its activation held (DESIGN §22).
consumed as (
  update install_codes set status = case when install_codes.uses = 1 then 'consumed' else install_codes.status end, uses_spent = uses_spent + 1
  from confirmed where install_codes.id = confirmed.install_code_id returning install_codes.uses),
recorded as (
  insert into events (type, install_code_id, activation_id, data, ${EVENT_CONTEXT_COLUMNS})
  select e.type, confirmed.install_code_id, confirmed.id, '{}'::jsonb, ${EVENT_CONTEXT_VALUES}
  from confirmed cross join consumed cross join (values (1, 'activation.confirmed'), (2, 'install_code.consumed')) as e(n, type)
  where e.n = 1 or consumed.uses = 1 order by e.n
  returning type)
select id, install_code_id, hostname, public_ip, machine_id, ssh_fingerprint, requested_ref, installer_version, tags, ${RECORDED_COLUMN}
from confirmed`);

interface ConfirmedRow {
  recorded: EventType[] | null;
  id: string;
  install_code_id: string;
  hostname: string;
  public_ip: string;
  machine_id: string;
  ssh_fingerprint: string;
  requested_ref: string;
  installer_version: string;
  tags: Record<string, string>;
}

/**
 * One statement: consumes the install token (its jti must match, be unused and unexpired) as it confirms
 * the activation, marks the code `consumed` and records both events. Usable once, across all instances.
 * Only a refused confirm reads the activation again, to say why.
 */
export async function confirmActivation(
  db: Database,
  {
    activationId,
    jti,
    now,
    context,
  }: { activationId: string /** The install token's jti. */; jti: string; now: Date; context: ChangeContext },
): Promise<ConfirmedInstall> {
  const [confirmed] = await runStatement<ConfirmedRow, ConfirmParams>(db, CONFIRM, {
    activation_id: activationId,
    install_token_jti_hash: sha256Hex(jti),
    ...eventContextParams(context, now),
  });
  if (confirmed) {
    noteRecorded(context, confirmed.recorded);
    return {
      id: confirmed.id,
      installCodeId: confirmed.install_code_id,
      hostname: confirmed.hostname,
      publicIp: confirmed.public_ip,
      machineId: confirmed.machine_id,
      sshFingerprint: confirmed.ssh_fingerprint,
      requestedRef: confirmed.requested_ref,
      installerVersion: confirmed.installer_version,
      tags: confirmed.tags,
      // The statement's own parameter: the same instant whatever form the driver gives the column in.
      confirmedAt: now,
    };
  }
  const current = await findActivation(db, activationId);
  assertInstallTokenJti(current, jti);
  // The confirm that succeeded, read back from the row: the same claims and time, so the same receipt. A
  // repeat by the token's holder (an answer a failover swallowed, DESIGN §20) writes nothing, so nothing is counted.
  if (current.status === 'confirmed' && current.confirmedAt)
    return {
      id: current.id,
      installCodeId: current.installCodeId,
      hostname: current.hostname,
      publicIp: current.publicIp,
      machineId: current.machineId,
      sshFingerprint: current.sshFingerprint,
      requestedRef: current.requestedRef,
      installerVersion: current.installerVersion,
      confirmedAt: current.confirmedAt,
      tags: current.tags,
    };
  if (current.status === 'confirmed') throw new ApiError('install_token_used');
  if (current.status === 'released') throw new ApiError('activation_released');
  throw new ApiError('install_token_invalid');
}

/**
 * Releases an unconfirmed activation. The code goes back to `issued`, keeping its original expiry,
 * only while the install token is unused and unexpired and the code itself has not expired. With
 * `code: 'revoke'` (an operator, or the browser that issued the code, stopping an install) the code is
 * revoked instead and can never be used again.
 * A server registered for the activation is revoked with it: a failed install must not leave a live
 * agent token behind. Idempotent: releasing a released activation answers what the first release
 * answered, and records nothing more.
 */
export interface ReleaseResult {
  activationId: string;
  codeRestored: boolean;
  /** False for a repeated release, which changes nothing. */
  released: boolean;
  /** Whether a server registered for the activation was revoked by this release. */
  serverRevoked: boolean;
}

// `:restore_code`: restore the code (else revoke it); `:install_token_usable`: the install token is unused and unexpired;
// `:operator_data`: what an operator's change adds to each event's data; `:release_data` the release's own (`release_proof`).
type ReleaseParams = EventContextParams & {
  activation_id: string;
  restore_code: boolean;
  install_token_usable: boolean;
  operator_data: string;
  release_data: string;
};

const RELEASE = namedStatement<ReleaseParams>(`with released as (
  update activations set status = 'released', released_at = :now::timestamptz,
    -- A page code (or an operator's code for one use) is restored while the install token is usable; a code with
    -- uses > 1 stays issued and gets this use back whatever the token (an expired one gave it back already).
    code_restored = :restore_code::boolean
      and exists (select 1 from install_codes c where c.id = activations.install_code_id and c.expires_at > :now::timestamptz
        and case when c.uses > 1 then c.status = 'issued' else c.status = 'activated' and :install_token_usable::boolean end)
  where id = :activation_id and status = 'activated'
  returning id, install_code_id, code_restored),
revoked_servers as (
  update servers set status = 'revoked', revoked_at = :now::timestamptz from released
  where servers.activation_id = released.id and servers.status = 'active' returning servers.id),
restored as (
  -- A restored code starts afresh: the precheck before the failed install is history, not news; an approval ends (it is asked again).
  update install_codes set status = 'issued', prechecked_at = null, precheck_machine_id = null, precheck_ssh_fingerprint = null, precheck_ip = null,
    approval = case when install_codes.approval is null then null else 'pending' end, approval_precheck_id = null, approval_decided_at = null
  from released where install_codes.id = released.install_code_id and released.code_restored and install_codes.uses = 1 returning install_codes.id),
forgotten_prechecks as (
  delete from install_code_prechecks using restored where install_code_prechecks.install_code_id = restored.id),
revoked_code as (
  update install_codes set status = 'revoked', revoked_at = :now::timestamptz
  from released where not :restore_code::boolean and install_codes.id = released.install_code_id and install_codes.status = 'activated' returning install_codes.id),
changes as (
  select 1 as n, 'activation.released' as type, null::text as server_id,
    json_build_object('install_code_restored', released.code_restored, 'released_by', :actor::text)::jsonb || :release_data::jsonb as data from released
  union all select 2, 'install_code.restored', null, '{}'::jsonb from restored
  union all select 3, 'install_code.revoked', null, '{}'::jsonb from revoked_code
  union all select 4, 'server.revoked', revoked_servers.id, '{"cause":"activation_released"}'::jsonb from revoked_servers),
recorded as (
  insert into events (type, install_code_id, activation_id, server_id, data, ${EVENT_CONTEXT_COLUMNS})
  select changes.type, released.install_code_id, released.id, changes.server_id, changes.data || :operator_data::jsonb, ${EVENT_CONTEXT_VALUES}
  from changes cross join released order by changes.n, changes.server_id
  returning type)
select code_restored, (select count(*) from revoked_servers)::int as revoked_servers, ${RECORDED_COLUMN} from released`);

/**
 * Two statements in one transaction: the activation is locked and read (a register holding it is
 * waited for, so the server it made is seen), then one statement makes every change and its events:
 * the release, the server revoked, the code restored or revoked.
 */
export async function releaseActivation(
  db: Database,
  {
    activationId,
    now,
    context,
    code = 'restore',
    proof,
  }: { activationId: string; now: Date; context: ChangeContext; code?: 'restore' | 'revoke'; proof?: ReleaseProof },
): Promise<ReleaseResult> {
  return db.transaction(async (tx) => {
    // Locked before the server, in the order register takes them, so a concurrent register waits and then sees `released`.
    const [current] = await tx.select().from(activations).where(eq(activations.id, activationId)).for('update');
    if (!current) throw new ApiError('activation_not_found');
    // The installer's proof, before the state: a repeat without it is refused as the first one would be.
    if (proof) await assertReleaseProof(tx, current, proof);
    if (current.status === 'confirmed') throw new ApiError('activation_confirmed');
    if (current.status === 'released')
      return { activationId, codeRestored: current.codeRestored ?? false, released: false, serverRevoked: false };
    type Row = { code_restored: boolean; revoked_servers: number; recorded: EventType[] | null };
    const [row] = await runStatement<Row, ReleaseParams>(tx, RELEASE, {
      activation_id: activationId,
      restore_code: code === 'restore',
      install_token_usable: installTokenUsable(current, now),
      operator_data: JSON.stringify(operatorEventData(context)),
      release_data: JSON.stringify(proof ? { release_proof: proof.kind } : {}),
      ...eventContextParams(context, now),
    });
    noteRecorded(context, row!.recorded);
    return { activationId, codeRestored: row!.code_restored, released: true, serverRevoked: row!.revoked_servers > 0 };
  });
}
