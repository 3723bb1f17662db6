import type { KeyedHashes } from './keyed-hashes.js';
import { and, eq } from 'drizzle-orm';
import { toIsoOffset, wholeSecond } from '../clock.js';
import type { Database } from '../db/client.js';
import { installCodes } from '../db/schema.js';
import { namedStatement } from '../db/named-statement.js';
import { runStatement, timestampOf } from '../db/statement.js';
import { ApiError } from '../errors.js';
import {
  EVENT_CONTEXT_COLUMNS,
  EVENT_CONTEXT_VALUES,
  eventContextParams,
  noteRecorded,
  RECORDED_COLUMN,
  recordEvent,
  type ChangeContext,
  type EventContextParams,
  type EventType,
} from './events.js';
import {
  COUNTS_COLUMN,
  countedCte,
  countedStatement,
  type BucketCount,
  type BucketsParam,
  type CountedOutcome,
  type RateLimitCheck,
} from './rate-limits/limiter.js';
import { generateInstallCode, installCodeHint, installCodePrefix } from './install-code-format.js';
import { addressProblem, limitsFor, readCodeBinding } from './operator-code-binding.js';
import { HELD_USES } from './operator-code-uses.js';
import { randomId, sha256Hex } from './secret-hash.js';

export type InstallCodeRow = typeof installCodes.$inferSelect;

export interface IssuedInstallCode {
  /** The public handle (`ic_` + 16 hex), which is not the code. */
  id: string;
  code: string;
  hint: string;
  expiresAt: Date;
  /** Whether a machine must wait for the person's approval (DESIGN §14). */
  requireApproval: boolean;
}

// `:approval`: the approval the code starts with (null: issued without approval); `:issued_data`: the event's data.
type IssueParams = BucketsParam &
  EventContextParams & {
    id: string;
    code_hash: string;
    hint: string;
    expires_at: string;
    session_hash: string;
    issued_data: string;
    approval: string | null;
  };

// Nothing is counted or written unless the session is valid.
const ISSUE =
  namedStatement<IssueParams>(`with session as (select from browser_sessions where token_hash = :session_hash and expires_at > :now::timestamptz),
${countedCte(`case when exists (select from session) then :buckets::json else '[]'::json end`)},
issued as (
  insert into install_codes (id, code_hash, hint, status, issued_at, expires_at, browser_session_hash, approval)
  select :id, :code_hash, :hint, 'issued', :now::timestamptz, :expires_at::timestamptz, :session_hash, :approval::text
  where exists (select from session) returning id),
recorded as (
  insert into events (type, install_code_id, data, ${EVENT_CONTEXT_COLUMNS})
  select 'install_code.issued', issued.id, :issued_data::jsonb, ${EVENT_CONTEXT_VALUES} from issued
  returning type)
select exists (select from session) as session, ${COUNTS_COLUMN}, ${RECORDED_COLUMN}`);

/**
 * One statement: checks the browser session, counts the request in `limits` and makes a fresh `issued`
 * code with its event; nothing when the session is not valid (403 `browser_session_required`, thrown
 * before any limit is counted) or a limit is exhausted. The code itself is returned once and stored only
 * as its hash, next to the hash of the browser session that asked for it (whose page may then watch and
 * cancel it).
 */
export async function issueInstallCode(
  db: Database,
  {
    input: { prefix, ttlSeconds, browserSessionHash, requireApproval = false },
    now,
    context,
    limits,
  }: {
    input: {
      /** INSTALL_CODE_PREFIX. */
      prefix: string;
      /** INSTALL_CODE_TTL_SECONDS. */
      ttlSeconds: number;
      browserSessionHash: string;
      requireApproval?: boolean;
    };
    now: Date;
    context: ChangeContext;
    limits: RateLimitCheck[];
  },
): Promise<CountedOutcome<IssuedInstallCode>> {
  const code = generateInstallCode(prefix);
  const issued = {
    id: randomId('ic_', 8),
    code,
    hint: installCodeHint(code),
    expiresAt: new Date(wholeSecond(now).getTime() + ttlSeconds * 1000),
    requireApproval,
  };
  const data = JSON.stringify({
    hint: issued.hint,
    expires_at: toIsoOffset(issued.expiresAt),
    ...(requireApproval ? { require_approval: true } : {}),
  });
  return countedStatement(db, limits, now, async (buckets) => {
    type Row = { session: boolean; counts: BucketCount[] | null; recorded: EventType[] | null };
    const [row] = await runStatement<Row, IssueParams>(db, ISSUE, {
      buckets,
      id: issued.id,
      code_hash: sha256Hex(code),
      hint: issued.hint,
      expires_at: issued.expiresAt.toISOString(),
      session_hash: browserSessionHash,
      issued_data: data,
      approval: requireApproval ? 'pending' : null,
      ...eventContextParams(context, now),
    });
    if (!row!.session) throw new ApiError('browser_session_required');
    noteRecorded(context, row!.recorded);
    return { counts: row!.counts, value: issued };
  });
}

/** The error a code that cannot be used gives, or undefined when it is `issued` and unexpired. */
export function installCodeProblem(
  row: (Pick<InstallCodeRow, 'status' | 'expiresAt'> & { approval?: InstallCodeRow['approval'] }) | undefined,
  now: Date,
): ApiError | undefined {
  if (!row) return new ApiError('install_code_not_found');
  // Denied by the person: not 410, so that an installer can tell the person said no (DESIGN §14).
  if (row.approval === 'denied') return new ApiError('approval_denied');
  if (row.status === 'revoked') return new ApiError('install_code_revoked');
  if (row.status !== 'issued') return new ApiError('install_code_unavailable');
  if (row.expiresAt.getTime() <= now.getTime()) return new ApiError('install_code_expired');
  return undefined;
}

/**
 * `issued` → `revoked` (expired or not): the code can no longer be prechecked or activated (410
 * `install_code_revoked`). Idempotent: a revoked code answers as it is, with no second event. A code an
 * activation holds (`activated`, `consumed`) cannot be revoked: release the activation instead.
 */
export async function revokeInstallCode(
  db: Database,
  installCodeId: string,
  now: Date,
  context: ChangeContext,
): Promise<InstallCodeRow> {
  return db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(installCodes)
      .set({ status: 'revoked', revokedAt: now })
      .where(and(eq(installCodes.id, installCodeId), eq(installCodes.status, 'issued')))
      .returning();
    if (revoked) {
      await recordEvent(tx, context, now, { type: 'install_code.revoked', installCodeId });
      return revoked;
    }
    const [current] = await tx.select().from(installCodes).where(eq(installCodes.id, installCodeId));
    if (!current) throw new ApiError('install_code_not_found', 'No install code has this id.');
    if (current.status === 'revoked') return current;
    throw new ApiError(
      'install_code_unavailable',
      'This install code is in use by an activation: release the activation instead.',
    );
  });
}

const approvedForAnotherPrecheck = () =>
  new ApiError(
    'machine_mismatch',
    "The owner of this install code approved another precheck: only that precheck's token can activate it.",
  );

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
  expiresAt: Date;
  /** `not_required` for a code issued without approval (its answer says nothing of approval); otherwise this precheck waits for the person (`pending`). */
  approval: 'not_required' | 'pending';
  /** SHA-256 of the normalised code, as looked up: what the precheck token binds. */
  codeHash: string;
}

// `:code_hash` is null for a code that cannot exist here; `:installer_version` is kept for the person only when the
// code waits for their approval.
// `:address_allowed`: the observed address is inside the code's `allowed_cidrs` (or it has none).
type PrecheckParams = BucketsParam & {
  code_hash: string | null;
  address_allowed: boolean;
  now: string;
  machine_id: string;
  ssh_fingerprint: string;
  ip: string | null;
  precheck_id: string;
  installer_version: string;
};

// A code that does not exist is counted against the sender only (countedCte).
const PRECHECK =
  namedStatement<PrecheckParams>(`with ${countedCte(':buckets::json', 'exists (select from install_codes where code_hash = :code_hash)')},
noted as (
  update install_codes set prechecked_at = :now::timestamptz, precheck_machine_id = :machine_id,
    precheck_ssh_fingerprint = :ssh_fingerprint, precheck_ip = :ip
  where code_hash = :code_hash and status = 'issued' and expires_at > :now::timestamptz and approval is distinct from 'approved'
    and :address_allowed::boolean and (uses = 1 or uses_spent + ${HELD_USES} < uses) returning id, approval),
shown as (
  insert into install_code_prechecks (id, install_code_id, prechecked_at, ip, machine_id, ssh_fingerprint, installer_version)
  select :precheck_id, noted.id, :now::timestamptz, :ip, :machine_id, :ssh_fingerprint, :installer_version
  from noted where noted.approval is not null)
select ${COUNTS_COLUMN}, c.id, c.status, c.expires_at, c.approval, c.uses > 1 and c.uses_spent + ${HELD_USES.replaceAll('install_codes.', 'c.')} >= c.uses as exhausted
from (select 1) as one left join install_codes c on c.code_hash = :code_hash`);

/**
 * One statement: counts the precheck in `limits` (an unusable code is counted too; a code that does not
 * exist only in the limits that count the sender, so made-up codes cannot spend a machine's budget) and, when
 * the code is `issued` and unexpired, notes the machine that prechecked it, so the page that issued it
 * can say who did; a code issued with approval keeps each precheck (`precheckId`) for the person to
 * approve or deny. Answers the code, or the error an unusable code gives.
 */
export async function precheckInstallCode(
  db: Database,
  {
    input: { normalisedCode, prefix, sighting, precheckId },
    now,
    limits,
    hashes,
  }: {
    input: {
      normalisedCode: string;
      /** INSTALL_CODE_PREFIX. */
      prefix: string;
      sighting: PrecheckSighting;
      precheckId: string;
    };
    now: Date;
    limits: RateLimitCheck[];
    /** How a fleet code's own bucket hashes its subject, as `limits` were hashed. */
    hashes: KeyedHashes;
  },
): Promise<CountedOutcome<PrecheckedInstallCode | ApiError>> {
  // A code with another product's prefix cannot exist here: it is looked up as no code at all.
  const codeHash = installCodePrefix(normalisedCode) === prefix ? sha256Hex(normalisedCode) : null;
  const binding = await readCodeBinding(db, { canonical: normalisedCode, hash: codeHash });
  const addressRefusal = addressProblem(binding, sighting.ip);
  const checks = limitsFor({ binding, observedIp: sighting.ip, route: 'precheck', checks: limits, hashes });
  return countedStatement<PrecheckedInstallCode | ApiError>(db, checks, now, async (buckets) => {
    type Row = {
      exhausted: boolean | null;
      counts: BucketCount[] | null;
      id: string | null;
      status: InstallCodeRow['status'] | null;
      expires_at: string | null;
      approval: InstallCodeRow['approval'];
    };
    const [row] = await runStatement<Row, PrecheckParams>(db, PRECHECK, {
      buckets,
      code_hash: codeHash,
      address_allowed: addressRefusal === undefined,
      now: now.toISOString(),
      machine_id: sighting.machineId,
      ssh_fingerprint: sighting.sshFingerprint,
      ip: sighting.ip,
      precheck_id: precheckId,
      installer_version: sighting.installerVersion,
    });
    const code =
      row!.id === null
        ? undefined
        : { id: row!.id, status: row!.status!, expiresAt: timestampOf(row!.expires_at!), approval: row!.approval };
    const problem = installCodeProblem(code, now);
    if (problem) return { counts: row!.counts, value: problem };
    if (addressRefusal) return { counts: row!.counts, value: addressRefusal };
    if (row!.exhausted) return { counts: row!.counts, value: new ApiError('install_code_exhausted') };
    // Approved for another precheck (DESIGN §23): no decision can come for this one, and the page keeps the approved machine.
    if (code!.approval === 'approved') return { counts: row!.counts, value: approvedForAnotherPrecheck() };
    // A usable code is `issued`: its approval is pending (a decision is made on a precheck, which then activates or is denied) or none.
    return {
      counts: row!.counts,
      value: {
        id: code!.id,
        expiresAt: code!.expiresAt,
        approval: code!.approval === null ? 'not_required' : 'pending',
        codeHash: codeHash!,
      },
    };
  });
}
