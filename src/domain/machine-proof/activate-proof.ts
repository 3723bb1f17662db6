import type { Database } from '../../db/database.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement } from '../../db/statement.js';
import { ApiError } from '../../errors.js';
import { recordEvent, type ChangeContext } from '../events/event-trail.js';
import { ProofFailure, type ProofFailureReason } from './ssh-wire.js';
import { verifyMachineProof, type MachineProof } from './verify-machine-proof.js';

/** MACHINE_PROOF: whether every activate must prove its machine's SSH host key, or may (DESIGN §24). */
export type MachineProofPolicy = 'optional' | 'required';

/** A proof that does not prove: 403 `machine_proof_invalid`; which check failed is kept for the event alone. */
export class MachineProofRefused extends ApiError {
  constructor(readonly reason: ProofFailureReason) {
    super('machine_proof_invalid');
  }
}

export const machineProofRequired = () => new ApiError('machine_proof_required');

/** What an activate presents for its proof: the proof, with the values it signed as they were sent. */
export interface ProvingActivate {
  proof:
    | (MachineProof & {
        /** The body's `machine_id`, `hostname` and `public_ip` as sent (after JSON decoding, before any normalising). */
        signed: { machineId: string; hostname: string; publicIp: string };
      })
    | undefined;
  /** The fingerprint the precheck token binds. */
  sshFingerprint: string;
}

/**
 * Whether this activate proves its machine's key: false when it sends no proof and MACHINE_PROOF lets it (a
 * fleet code's own `require_machine_proof` is met later, with the code). Throws `MachineProofRefused` for a proof
 * that fails, 403 `machine_proof_required` for none where one is required. No database: a step's first checks.
 */
export function provenAtActivate(
  request: ProvingActivate,
  { challenge, origin, policy }: { challenge: string | undefined; origin: string; policy: MachineProofPolicy },
): boolean {
  if (request.proof === undefined) {
    if (policy === 'required') throw machineProofRequired();
    return false;
  }
  try {
    verifyMachineProof(request.proof, {
      statement: { origin, challenge, ...request.proof.signed },
      fingerprint: request.sshFingerprint,
    });
  } catch (failure) {
    if (failure instanceof ProofFailure) throw new MachineProofRefused(failure.reason);
    throw failure;
  }
  return true;
}

const CODE_ID = namedStatement<{ code_hash: string }>('select id from install_codes where code_hash = :code_hash');

/** `install_code.machine_proof_refused`: which check failed, for the operator (never for the caller). */
export async function recordRefusedProof(
  db: Database,
  {
    refusal,
    codeHash,
    machineId,
    sshFingerprint,
    context,
    now,
  }: {
    refusal: MachineProofRefused;
    codeHash: string;
    machineId: string;
    sshFingerprint: string;
    context: ChangeContext;
    now: Date;
  },
): Promise<void> {
  const [code] = await runStatement<{ id: string }, { code_hash: string }>(db, CODE_ID, { code_hash: codeHash });
  await recordEvent(db, context, now, {
    type: 'install_code.machine_proof_refused',
    installCodeId: code?.id,
    data: { reason: refusal.reason, machine_id: machineId, ssh_fingerprint: sshFingerprint },
  });
}
