/** The namespace every machine proof is signed in: a signature made for anything else never passes for one. */
export const PROOF_NAMESPACE = 'slowdns-activate';

/** What the machine signs at activate (DESIGN §24): each value as sent in activate's body, before any normalising. */
export interface ProofStatement {
  /** The origin of PUBLIC_BASE_URL: a hostile service cannot relay another's challenge. */
  origin: string;
  /** The precheck's challenge (its token's `pch`). */
  challenge: string;
  machineId: string;
  hostname: string;
  publicIp: string;
}

export function proofMessage(s: ProofStatement): Buffer {
  return Buffer.from(
    `slowdns-activate/1\nservice=${s.origin}\nchallenge=${s.challenge}\nmachine_id=${s.machineId}\nhostname=${s.hostname}\npublic_ip=${s.publicIp}\n`,
    'utf8',
  );
}
