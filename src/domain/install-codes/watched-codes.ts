import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { activations, installCodes } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { releaseActivation } from '../activations/release.js';
import type { ActivationRow } from '../activations/activation-rows.js';
import type { ChangeContext } from '../events/event-trail.js';
import {
  codeApproval,
  precheckApproval,
  prechecksOf,
  type CodeApproval,
  type CodePrechecks,
  type PrecheckApproval,
} from './approval.js';
import { revokeInstallCode } from './revoke.js';
import type { InstallCodeRow } from './code-problem.js';

/** What became of an install code, as the page that issued it tells the person. */
export const WATCHED_STATUSES = [
  'issued',
  'prechecked',
  'activated',
  'confirmed',
  'released',
  'expired',
  'revoked',
] as const;
type WatchedStatus = (typeof WATCHED_STATUSES)[number];

/** A session sees at most this many of its codes, newest first (the issue limits allow far fewer per hour). */
export const WATCHED_CODES_LIMIT = 50;

/** Enough of a machine id to recognise it, not the whole of it (systemd treats machine ids as confidential). */
export const MACHINE_ID_SHORT_LENGTH = 8;

interface WatchedMachine {
  /** Null until an activation states them. */
  hostname: string | null;
  publicIp: string | null;
  machineIdShort: string;
  sshFingerprint: string;
}

/** A machine that prechecked a code issued with approval, as the person decides on it (DESIGN §14). */
interface WatchedPrecheck {
  id: string;
  ip: string | null;
  machineIdShort: string;
  sshFingerprint: string;
  installerVersion: string;
  precheckedAt: Date;
  approval: PrecheckApproval;
}

export interface WatchedInstallCode {
  id: string;
  hint: string;
  status: WatchedStatus;
  /** Whether an installer can still enter the code (it is `issued` and unexpired). */
  usable: boolean;
  issuedAt: Date;
  expiresAt: Date;
  /** The machine that used the code last: the activation's, or else the precheck's. */
  machine: WatchedMachine | null;
  precheckIp: string | null;
  precheckedAt: Date | null;
  activatedAt: Date | null;
  confirmedAt: Date | null;
  releasedAt: Date | null;
  revokedAt: Date | null;
  /** The activation's machine identity was already in use elsewhere (§16): never where. */
  identityInUse: boolean;
  requireApproval: boolean;
  approval: CodeApproval;
  /** Newest first; none for a code issued without approval. */
  prechecks: WatchedPrecheck[];
}

/** The activation that tells a code's story: the one not released (at most one), or else the last released. */
function currentActivation(rows: ActivationRow[]): ActivationRow | undefined {
  return rows.find((a) => a.status !== 'released') ?? rows[0];
}

function watchedStatus(code: InstallCodeRow, activation: ActivationRow | undefined, now: Date): WatchedStatus {
  if (code.status === 'revoked') return 'revoked';
  if (code.status === 'consumed') return 'confirmed';
  if (activation?.status === 'activated') return 'activated';
  if (code.status === 'issued') {
    if (code.expiresAt <= now) return 'expired';
    // A restored code has its precheck cleared (releaseActivation): a precheck seen now came after any release.
    if (code.precheckedAt) return 'prechecked';
  }
  // Released: restored (`issued` again, usable) or not (the code stays `activated` and unusable).
  if (activation?.status === 'released') return 'released';
  return 'issued';
}

function watchInstallCode(
  code: InstallCodeRow,
  activation: ActivationRow | undefined,
  now: Date,
  { shown, decided }: CodePrechecks = { shown: [], decided: undefined },
): WatchedInstallCode {
  const status = watchedStatus(code, activation, now);
  let machine: WatchedMachine | null = null;
  if (activation && status !== 'prechecked') {
    machine = {
      hostname: activation.hostname,
      publicIp: activation.publicIp,
      machineIdShort: activation.machineId.slice(0, MACHINE_ID_SHORT_LENGTH),
      sshFingerprint: activation.sshFingerprint,
    };
  } else if (code.precheckedAt && code.precheckMachineId && code.precheckSshFingerprint) {
    machine = {
      hostname: null,
      publicIp: null,
      machineIdShort: code.precheckMachineId.slice(0, MACHINE_ID_SHORT_LENGTH),
      sshFingerprint: code.precheckSshFingerprint,
    };
  }
  return {
    id: code.id,
    hint: code.hint,
    status,
    usable: code.status === 'issued' && code.expiresAt > now,
    issuedAt: code.issuedAt,
    expiresAt: code.expiresAt,
    machine,
    precheckIp: code.precheckedAt ? code.precheckIp : null,
    precheckedAt: code.precheckedAt,
    activatedAt: activation?.createdAt ?? null,
    confirmedAt: activation?.confirmedAt ?? null,
    releasedAt: activation?.releasedAt ?? null,
    revokedAt: code.revokedAt,
    identityInUse: activation !== undefined && activation.status !== 'released' && activation.duplicateOf !== null,
    requireApproval: code.requireApproval,
    approval: codeApproval(code, decided),
    prechecks: shown.map((p) => ({
      id: p.id,
      ip: p.ip,
      machineIdShort: p.machineId.slice(0, MACHINE_ID_SHORT_LENGTH),
      sshFingerprint: p.sshFingerprint,
      installerVersion: p.installerVersion,
      precheckedAt: p.precheckedAt,
      approval: precheckApproval(code, p, decided),
    })),
  };
}

/** Each code with the activation that tells its story, and its prechecks awaiting or given the person's decision. */
async function watchCodes(db: Database, codes: InstallCodeRow[], now: Date): Promise<WatchedInstallCode[]> {
  if (codes.length === 0) return [];
  const prechecks = await prechecksOf(db, codes);
  const used = await db
    .select()
    .from(activations)
    .where(
      inArray(
        activations.installCodeId,
        codes.map((c) => c.id),
      ),
    )
    .orderBy(desc(activations.createdAt), desc(activations.releasedAt));
  return codes.map((code) =>
    watchInstallCode(
      code,
      currentActivation(used.filter((a) => a.installCodeId === code.id)),
      now,
      prechecks.get(code.id),
    ),
  );
}

/** The codes one browser session issued, newest first, each with what became of it. */
export async function listWatchedInstallCodes(
  db: Database,
  browserSessionHash: string,
  now: Date,
): Promise<WatchedInstallCode[]> {
  const codes = await db
    .select()
    .from(installCodes)
    .where(eq(installCodes.browserSessionHash, browserSessionHash))
    .orderBy(desc(installCodes.issuedAt), desc(installCodes.id))
    .limit(WATCHED_CODES_LIMIT);
  return watchCodes(db, codes, now);
}

/** A code of this session, or 404: another browser's code is as unknown as a code that never existed. */
async function sessionInstallCode(
  db: Database,
  browserSessionHash: string,
  installCodeId: string,
): Promise<InstallCodeRow> {
  const [code] = await db
    .select()
    .from(installCodes)
    .where(and(eq(installCodes.id, installCodeId), eq(installCodes.browserSessionHash, browserSessionHash)));
  if (!code) throw new ApiError('install_code_not_found', 'This browser issued no install code with this id.');
  return code;
}

/** One code of this session as its page watches it, or 404. */
export async function readWatchedInstallCode(
  db: Database,
  browserSessionHash: string,
  installCodeId: string,
  now: Date,
): Promise<WatchedInstallCode> {
  const [watched] = await watchCodes(db, [await sessionInstallCode(db, browserSessionHash, installCodeId)], now);
  return watched!;
}

export interface CancelOutcome {
  code: WatchedInstallCode;
  /** What this call changed: nothing for a repeat (or a code already out of play), the code, or the install in progress too. */
  cancelled: 'nothing' | 'code' | 'install';
  /** Whether cancelling the install revoked a server registered for it (as a release does). */
  serverRevoked: boolean;
}

/**
 * The issuing browser stops its code: an `issued` code is revoked (precheck and activate then answer 410
 * `install_code_revoked`); an unconfirmed activation is released without restoring the code, which is
 * revoked with it. A confirmed install cannot be undone here (409 `activation_confirmed`). Idempotent.
 * No lock is taken here: each change is the domain's own conditional update, so a confirm or an activate
 * racing the cancel either wins (and the cancel says so) or loses cleanly.
 */
export async function cancelWatchedInstallCode(
  db: Database,
  {
    browserSessionHash,
    installCodeId,
    now,
    context,
  }: { browserSessionHash: string; installCodeId: string; now: Date; context: ChangeContext },
): Promise<CancelOutcome> {
  let cancelled: CancelOutcome['cancelled'] = 'nothing';
  let serverRevoked = false;
  // Two rounds at most: a code activated between the read and the revoke is then cancelled as an install.
  for (let round = 0; round < 2 && cancelled === 'nothing'; round++) {
    const code = await sessionInstallCode(db, browserSessionHash, installCodeId);
    if (code.status === 'consumed') throw new ApiError('activation_confirmed', CONFIRMED_MESSAGE);
    if (code.status === 'issued') {
      try {
        await revokeInstallCode(db, code.id, now, context);
        cancelled = 'code';
      } catch (error) {
        if (error instanceof ApiError && error.code === 'install_code_unavailable') continue;
        throw error;
      }
    } else if (code.status === 'activated') {
      const [live] = await db
        .select({ id: activations.id })
        .from(activations)
        .where(and(eq(activations.installCodeId, code.id), eq(activations.status, 'activated')));
      // No live activation: a release already took the code out of play without restoring it.
      if (!live) break;
      try {
        const release = await releaseActivation(db, { activationId: live.id, now, context, code: 'revoke' });
        if (release.released) cancelled = 'install';
        serverRevoked = release.serverRevoked;
      } catch (error) {
        if (error instanceof ApiError && error.code === 'activation_confirmed')
          throw new ApiError('activation_confirmed', CONFIRMED_MESSAGE);
        throw error;
      }
    } else {
      break;
    }
  }
  return { code: await readWatchedInstallCode(db, browserSessionHash, installCodeId, now), cancelled, serverRevoked };
}

const CONFIRMED_MESSAGE =
  'This install is confirmed: a finished install cannot be cancelled from the page. If the server is not yours, ask the operator to revoke it.';
