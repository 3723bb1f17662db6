import type { Database } from '../../db/database.js';
import { precheckApproval, prechecksOf, type PrecheckApproval } from './approval.js';
import type { InstallCodeRow } from './code-problem.js';

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
 * the admin API's code and the console's code view show. Empty for a code issued without approval. A code
 * with `uses` > 1 is decided per precheck by an operator (DESIGN §22: each row's own decision, pending until
 * made); any other code by its one decision on the code (§14).
 */
export async function operatorPrechecksOf(
  db: Database,
  code: Pick<InstallCodeRow, 'id' | 'requireApproval' | 'uses'>,
): Promise<OperatorPrecheck[]> {
  const { shown, decided } = (await prechecksOf(db, [code])).get(code.id) ?? { shown: [], decided: undefined };
  return shown.map((row) => ({
    id: row.id,
    machineId: row.machineId,
    sshFingerprint: row.sshFingerprint,
    ip: row.ip,
    installerVersion: row.installerVersion,
    precheckedAt: row.precheckedAt,
    approval: precheckApproval(code, row, decided),
  }));
}
