import type { KeyedHashes } from '../tokens/keyed-hashes.js';
import type { Database } from '../../db/database.js';
import { composedStatement, sqlPiece } from '../../db/composed-statement.js';
import { runStatement, timestampOf } from '../../db/statement.js';
import { ApiError } from '../../errors.js';
import {
  COUNTS_COLUMN,
  countedCte,
  countedStatement,
  type BucketCount,
  type BucketsParam,
  type CountedOutcome,
  type RateLimitCheck,
} from '../rate-limits/limiter.js';
import { installCodePrefix } from './code-format.js';
import { addressProblem, codeFormProblem, limitsFor, readCodeBinding } from './fleet-binding.js';
import { heldUses } from './fleet-uses.js';
import { codeDecision } from './approval.js';
import {
  EVENT_CONTEXT_COLUMNS,
  EVENT_CONTEXT_VALUES,
  eventContextParams,
  noteRecorded,
  RECORDED_COLUMN,
  type ChangeContext,
  type EventContextParams,
  type EventType,
} from '../events/event-trail.js';
import { installCodeProblem, type InstallCodeRow } from './code-problem.js';

const approvedForAnotherPrecheck = () =>
  new ApiError(
    'machine_mismatch',
    "The owner of this install code approved another precheck: only that precheck's token can activate it.",
  );

/** What an identity precheck writes of its token (DESIGN §25): the hashed replay key, kept until the token's `exp` + 60 s. */
export interface IdentityReplay {
  keyHash: string;
  keepUntil: Date;
}

export interface PrecheckSighting {
  machineId: string;
  sshFingerprint: string;
  /** The client address the precheck came from, as the service saw it; null when it could not tell. */
  ip: string | null;
  installerVersion: string;
}

/** The code a precheck may use: its handle, expiry and where the person's approval stands. */
export interface PrecheckedInstallCode {
  id: string;
  /** The code's hint, as kept. */
  hint: string;
  expiresAt: Date;
  /** `not_required` for a code issued without approval (its answer says nothing of approval); otherwise this precheck waits for the person (`pending`). */
  approval: 'not_required' | 'pending';
  /** Who decides while it is `pending`: the person on the page that issued a page code, an operator for a fleet code. */
  approvalBy: 'person' | 'operator';
  /** SHA-256 of the normalised code, as looked up: what the precheck token binds. */
  codeHash: string;
  /** A fleet code made with `require_machine_proof` (DESIGN §24): activate must prove the machine's SSH host key. */
  requireMachineProof: boolean;
}

// `:code_hash` is null for a code that cannot exist here; `:installer_version` is kept for the person only when the
// code waits for their approval.
// `:address_allowed`: the observed address is inside the code's `allowed_cidrs` (or it has none).
type PrecheckParams = BucketsParam &
  EventContextParams & {
    code_hash: string | null;
    address_allowed: boolean;
    now: string;
    machine_id: string;
    ssh_fingerprint: string;
    ip: string | null;
    precheck_id: string;
    installer_version: string;
    /** An identity precheck's token (DESIGN §25): its hashed replay key, kept until `keep_until`; null for the code form. */
    replay_key_hash: string | null;
    keep_until: string | null;
  };

// A code that does not exist is counted against the sender only (countedCte).
const CODE_EXISTS = sqlPiece(['code_hash'], 'exists (select from install_codes where code_hash = :code_hash)');

// `replay` (DESIGN §25): an identity token is written once, for the code and the machine it first prechecked; the
// same machine again (a lost answer) finds its own row, another machine none, and then nothing else is written.
const PRECHECK = composedStatement<PrecheckParams>()`with ${countedCte({ beyondSenderIf: CODE_EXISTS })},
replay as (
  insert into identity_token_uses (replay_key_hash, install_code_id, machine_id, ssh_fingerprint, used_at, keep_until)
  select :replay_key_hash, c.id, :machine_id, :ssh_fingerprint, :now::timestamptz, :keep_until::timestamptz
  from install_codes c where c.code_hash = :code_hash and :replay_key_hash::text is not null
  on conflict (replay_key_hash) do update set used_at = identity_token_uses.used_at
  where identity_token_uses.install_code_id = excluded.install_code_id and identity_token_uses.machine_id = excluded.machine_id
    and identity_token_uses.ssh_fingerprint = excluded.ssh_fingerprint
  returning replay_key_hash),
noted as (
  update install_codes set prechecked_at = :now::timestamptz, precheck_machine_id = :machine_id,
    precheck_ssh_fingerprint = :ssh_fingerprint, precheck_ip = :ip
  where code_hash = :code_hash and status = 'issued' and expires_at > :now::timestamptz and ${codeDecision('install_codes')} is distinct from 'approved'
    and :address_allowed::boolean and (uses = 1 or uses_spent + ${heldUses('install_codes')} < uses)
    and (:replay_key_hash::text is null or exists (select from replay))
  returning id, require_approval, operator, hint, description, tags),
shown as (
  insert into install_code_prechecks (id, install_code_id, prechecked_at, ip, machine_id, ssh_fingerprint, installer_version)
  select :precheck_id, noted.id, :now::timestamptz, :ip, :machine_id, :ssh_fingerprint, :installer_version
  from noted where noted.require_approval returning install_code_id),
recorded as (
  insert into events (type, install_code_id, data, ${EVENT_CONTEXT_COLUMNS})
  select 'install_code.approval_requested', shown.install_code_id,
    jsonb_strip_nulls(jsonb_build_object('precheck_id', :precheck_id::text,
      'decided_by', case when noted.operator is null then 'person' else 'operator' end,
      'machine_id', :machine_id::text, 'hint', noted.hint, 'description', noted.description,
      'tags', case when noted.tags <> '{}'::jsonb then noted.tags end)),
    ${EVENT_CONTEXT_VALUES}
  from shown join noted on noted.id = shown.install_code_id
  returning type)
select ${COUNTS_COLUMN}, ${RECORDED_COLUMN}, c.id, c.hint, c.status, c.expires_at, c.require_approval, c.operator is not null as fleet, ${codeDecision('c')} as decision,
  c.uses > 1 and c.uses_spent + ${heldUses('c')} >= c.uses as exhausted,
  :replay_key_hash::text is not null and not exists (select from replay) as replayed
from (select 1) as one left join install_codes c on c.code_hash = :code_hash`;

/**
 * One statement: counts the precheck in `limits` (an unusable code is counted too; a code that does not
 * exist only in the limits that count the sender, so made-up codes cannot spend a machine's budget) and, when
 * the code is `issued` and unexpired, notes the machine that prechecked it, so the page that issued it
 * can say who did; a code issued with approval keeps each precheck (`precheckId`) for the person to
 * approve or deny. Answers the code, or as its refusal the error an unusable code gives.
 */
export async function precheckInstallCode(
  db: Database,
  {
    input: { code: sent, sighting, precheckId },
    now,
    limits,
    hashes,
    context,
  }: {
    input: {
      /**
       * The code as sent (normalised, with INSTALL_CODE_PREFIX), or the hash of a code named by its id after its
       * identity token verified (DESIGN §25): then `limits` are already the code's own.
       */
      code: { normalisedCode: string; prefix: string } | { identityCodeHash: string; replay: IdentityReplay };
      sighting: PrecheckSighting;
      precheckId: string;
    };
    now: Date;
    limits: RateLimitCheck[];
    /** How a fleet code's own bucket hashes its subject, as `limits` were hashed. */
    hashes: KeyedHashes;
    /** The installer's request: a precheck that starts to wait records `install_code.approval_requested` (DESIGN §28). */
    context: ChangeContext;
  },
): Promise<CountedOutcome<PrecheckedInstallCode>> {
  const identity = 'identityCodeHash' in sent;
  // A code with another product's prefix cannot exist here: it is looked up as no code at all.
  const codeHash = identity
    ? sent.identityCodeHash
    : installCodePrefix(sent.normalisedCode) === sent.prefix
      ? hashes.installCode(sent.normalisedCode)
      : null;
  const binding = await readCodeBinding(db, { canonical: identity ? undefined : sent.normalisedCode, hash: codeHash });
  const bindingRefusal = addressProblem(binding, sighting.ip) ?? (identity ? undefined : codeFormProblem(binding));
  const checks = identity
    ? limits
    : limitsFor({ binding, observedIp: sighting.ip, route: 'precheck', checks: limits, hashes });
  return countedStatement<PrecheckedInstallCode>(db, checks, now, async (buckets) => {
    type Row = {
      replayed: boolean;
      exhausted: boolean | null;
      counts: BucketCount[] | null;
      id: string | null;
      hint: string | null;
      status: InstallCodeRow['status'] | null;
      expires_at: string | null;
      require_approval: boolean | null;
      fleet: boolean | null;
      decision: 'approved' | 'denied' | null;
      recorded: EventType[] | null;
    };
    const [row] = await runStatement<Row, PrecheckParams>(db, PRECHECK, {
      buckets,
      code_hash: codeHash,
      address_allowed: bindingRefusal === undefined,
      machine_id: sighting.machineId,
      ssh_fingerprint: sighting.sshFingerprint,
      ip: sighting.ip,
      precheck_id: precheckId,
      installer_version: sighting.installerVersion,
      replay_key_hash: identity ? sent.replay.keyHash : null,
      keep_until: identity ? sent.replay.keepUntil.toISOString() : null,
      ...eventContextParams(context, now),
    });
    noteRecorded(context, row!.recorded);
    const code =
      row!.id === null
        ? undefined
        : {
            id: row!.id,
            status: row!.status!,
            expiresAt: timestampOf(row!.expires_at!),
            requireApproval: row!.require_approval!,
            decision: row!.decision,
          };
    const problem = installCodeProblem(code, now);
    if (problem) return { counts: row!.counts, refusal: problem };
    if (row!.replayed) return { counts: row!.counts, refusal: new ApiError('identity_token_replayed') };
    if (bindingRefusal) return { counts: row!.counts, refusal: bindingRefusal };
    if (row!.exhausted) return { counts: row!.counts, refusal: new ApiError('install_code_exhausted') };
    // Approved for another precheck (DESIGN §23): no decision can come for this one, and the page keeps the approved machine.
    if (code!.decision === 'approved') return { counts: row!.counts, refusal: approvedForAnotherPrecheck() };
    // A usable code is `issued`: its approval is pending (a decision is made on a precheck, which then activates or is denied) or none.
    return {
      counts: row!.counts,
      value: {
        id: code!.id,
        hint: row!.hint!,
        expiresAt: code!.expiresAt,
        approval: code!.requireApproval ? 'pending' : 'not_required',
        approvalBy: row!.fleet ? 'operator' : 'person',
        codeHash: codeHash!,
        requireMachineProof: binding?.requireMachineProof ?? false,
      },
    };
  });
}
