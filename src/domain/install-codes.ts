import { and, eq } from 'drizzle-orm';
import { toIsoOffset, wholeSecond } from '../clock.js';
import type { Database } from '../db/client.js';
import { installCodes } from '../db/schema.js';
import { runStatement, timestampOf } from '../db/statement.js';
import { ApiError } from '../errors.js';
import { EVENT_CONTEXT_COLUMNS, eventContextParams, recordEvent, type ChangeContext } from './events.js';
import {
  COUNTS_COLUMN,
  countedCte,
  countedStatement,
  type BucketCount,
  type CountedOutcome,
  type RateLimitCheck,
} from './rate-limits/limiter.js';
import { generateInstallCode, installCodeHint, installCodePrefix } from './install-code-format.js';
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

// $1 the buckets to count, $2 id, $3 code hash, $4 hint, $5 expiry, $6 session hash, $7 the event's data, then $8..$11 its context,
// $12 the approval it starts with (null: issued without approval).
// Nothing is counted or written unless the session is valid.
const ISSUE = `with session as (select from browser_sessions where token_hash = $6 and expires_at > $8::timestamptz),
${countedCte(`case when exists (select from session) then $1::json else '[]'::json end`)},
issued as (
  insert into install_codes (id, code_hash, hint, status, issued_at, expires_at, browser_session_hash, approval)
  select $2, $3, $4, 'issued', $8::timestamptz, $5::timestamptz, $6, $12::text where exists (select from session) returning id),
recorded as (
  insert into events (type, install_code_id, data, ${EVENT_CONTEXT_COLUMNS})
  select 'install_code.issued', issued.id, $7::jsonb, $8::timestamptz, $9, $10, $11 from issued)
select exists (select from session) as session, ${COUNTS_COLUMN}`;

/**
 * One statement: checks the browser session, counts the request in `limits` and makes a fresh `issued`
 * code with its event; nothing when the session is not valid (403 `browser_session_required`, thrown
 * before any limit is counted) or a limit is exhausted. The code itself is returned once and stored only
 * as its hash, next to the hash of the browser session that asked for it (whose page may then watch and
 * cancel it).
 */
export async function issueInstallCode(
  db: Database,
  prefix: string,
  now: Date,
  ttlSeconds: number,
  browserSessionHash: string,
  context: ChangeContext,
  limits: RateLimitCheck[],
  requireApproval = false,
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
    const params = [
      buckets,
      issued.id,
      sha256Hex(code),
      issued.hint,
      issued.expiresAt.toISOString(),
      browserSessionHash,
      data,
      ...eventContextParams(context, now),
      requireApproval ? 'pending' : null,
    ];
    const [row] = await runStatement<{ session: boolean; counts: BucketCount[] | null }>(db, ISSUE, params);
    if (!row!.session) throw new ApiError('browser_session_required');
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

// $1 the buckets to count, $2 code hash (null: no such code here), $3 now, $4 machine id, $5 SSH fingerprint, $6 address,
// $7 the precheck's id, $8 installer version (kept for the person only when the code waits for their approval).
// A code that does not exist is counted against the sender only (countedCte).
const PRECHECK = `with ${countedCte('$1::json', 'exists (select from install_codes where code_hash = $2)')},
noted as (
  update install_codes set prechecked_at = $3::timestamptz, precheck_machine_id = $4, precheck_ssh_fingerprint = $5, precheck_ip = $6
  where code_hash = $2 and status = 'issued' and expires_at > $3::timestamptz returning id, approval),
shown as (
  insert into install_code_prechecks (id, install_code_id, prechecked_at, ip, machine_id, ssh_fingerprint, installer_version)
  select $7, noted.id, $3::timestamptz, $6, $4, $5, $8 from noted where noted.approval is not null)
select ${COUNTS_COLUMN}, c.id, c.status, c.expires_at, c.approval
from (select 1) as one left join install_codes c on c.code_hash = $2`;

/**
 * One statement: counts the precheck in `limits` (an unusable code is counted too; a code that does not
 * exist only in the limits that count the sender, so made-up codes cannot spend a machine's budget) and, when
 * the code is `issued` and unexpired, notes the machine that prechecked it, so the page that issued it
 * can say who did; a code issued with approval keeps each precheck (`precheckId`) for the person to
 * approve or deny. Answers the code, or the error an unusable code gives.
 */
export async function precheckInstallCode(
  db: Database,
  normalisedCode: string,
  prefix: string,
  sighting: PrecheckSighting,
  precheckId: string,
  now: Date,
  limits: RateLimitCheck[],
): Promise<CountedOutcome<PrecheckedInstallCode | ApiError>> {
  // A code with another product's prefix cannot exist here: it is looked up as no code at all.
  const codeHash = installCodePrefix(normalisedCode) === prefix ? sha256Hex(normalisedCode) : null;
  return countedStatement<PrecheckedInstallCode | ApiError>(db, limits, now, async (buckets) => {
    type Row = {
      counts: BucketCount[] | null;
      id: string | null;
      status: InstallCodeRow['status'] | null;
      expires_at: string | null;
      approval: InstallCodeRow['approval'];
    };
    const params = [
      buckets,
      codeHash,
      now.toISOString(),
      sighting.machineId,
      sighting.sshFingerprint,
      sighting.ip,
      precheckId,
      sighting.installerVersion,
    ];
    const [row] = await runStatement<Row>(db, PRECHECK, params);
    const code =
      row!.id === null
        ? undefined
        : { id: row!.id, status: row!.status!, expiresAt: timestampOf(row!.expires_at!), approval: row!.approval };
    const problem = installCodeProblem(code, now);
    if (problem) return { counts: row!.counts, value: problem };
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
