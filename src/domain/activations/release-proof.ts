import type { Database } from '../../db/database.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement } from '../../db/statement.js';
import { ApiError } from '../../errors.js';
import { assertInstallTokenJti } from '../tokens/install-step-tokens.js';

/**
 * What shows that the installer itself asks for a release (DESIGN §23): its install token (verified for
 * this activation by the route, expiry ignored; its jti is compared here), or, without one, the address
 * the install came from (the client's rate-limit address key, as its events keep it hashed: the same IPv4
 * address, the same IPv6 /64).
 */
export type ReleaseProof =
  | { kind: 'install_token'; jti: string }
  | { kind: 'address'; clientKeyHash: string; clientAddress: string | null; tokenRequired: boolean };

// `:client_key_hash` the release's hashed client key, `:client_address` its address (null when unknown),
// `:since` a day before the activation was made (its activation.created event is written with it: the
// events' older partitions are not read).
// The activate's events carry the hashed client key of its request; the code keeps its last precheck's
// address, and a code issued with approval each of its prechecks' (by this machine only: a stranger's
// precheck proves nothing). An IPv6 precheck address proves its /64 (`>>=` ignores the host bits).
type ProvenParams = {
  activation_id: string;
  since: string;
  client_key_hash: string;
  machine_id: string;
  client_address: string | null;
};

const PROVEN = namedStatement<ProvenParams>(`
select exists (
    select 1 from events
    where activation_id = :activation_id and type = 'activation.created' and client_key_hash = :client_key_hash
      and occurred_at >= :since::timestamptz)
  or (:client_address::inet is not null and exists (
    select 1 from (
      select c.precheck_ip as ip from activations a join install_codes c on c.id = a.install_code_id
      where a.id = :activation_id and c.precheck_machine_id = :machine_id
      union all
      select p.ip from activations a join install_code_prechecks p on p.install_code_id = a.install_code_id
      where a.id = :activation_id and p.machine_id = :machine_id
    ) ips
    where ips.ip::inet = :client_address::inet
      or (family(ips.ip::inet) = 6 and set_masklen(ips.ip::inet, 64) >>= :client_address::inet))) as proven`);

/** Throws 401 `install_token_invalid` or 403 `release_not_allowed` unless `proof` holds for this activation. Read before its state. */
export async function assertReleaseProof(
  tx: Database,
  activation: { id: string; machineId: string; installTokenJtiHash: string; createdAt: Date },
  proof: ReleaseProof,
): Promise<void> {
  if (proof.kind === 'install_token') return assertInstallTokenJti(activation, proof.jti);
  if (proof.tokenRequired)
    throw new ApiError('release_not_allowed', 'This service releases an activation only with its install_token.');
  const [row] = await runStatement<{ proven: boolean }, ProvenParams>(tx, PROVEN, {
    activation_id: activation.id,
    since: new Date(activation.createdAt.getTime() - 86_400_000).toISOString(),
    client_key_hash: proof.clientKeyHash,
    machine_id: activation.machineId,
    client_address: proof.clientAddress,
  });
  if (!row?.proven) throw new ApiError('release_not_allowed');
}
