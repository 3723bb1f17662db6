import type { Database } from '../../db/client.js';
import { precheckApproval, prechecksOf, type PrecheckApproval } from '../install-code-approval.js';
import type { InstallCodeRow } from '../install-codes.js';

/** A precheck of a code issued with approval as an operator sees it: the whole machine id, and the person's decision on it. */
export interface OperatorPrecheck {
  id: string;
  machineId: string;
  sshFingerprint: string;
  /** The address it came from (after TRUST_PROXY), null when the service could not tell. */
  ip: string | null;
  installerVersion: string;
  precheckedAt: Date;
  approval: PrecheckApproval;
}

/**
 * The prechecks of one code, newest first (at most SHOWN_PRECHECKS_LIMIT), each with the decision on it: what
 * the admin API's code and the console's code view show. Empty for a code issued without approval.
 */
export async function operatorPrechecksOf(
  db: Database,
  code: Pick<InstallCodeRow, 'id' | 'approval' | 'approvalPrecheckId'>,
): Promise<OperatorPrecheck[]> {
  const rows = (await prechecksOf(db, [code])).get(code.id) ?? [];
  return rows.map((row) => ({
    id: row.id,
    machineId: row.machineId,
    sshFingerprint: row.sshFingerprint,
    ip: row.ip,
    installerVersion: row.installerVersion,
    precheckedAt: row.precheckedAt,
    approval: precheckApproval(code, row.id),
  }));
}
