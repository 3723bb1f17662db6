import type { Database } from '../../db/database.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement } from '../../db/statement.js';
import { ApiError } from '../../errors.js';
import { assertInstallTokenJti } from '../tokens/install-step-tokens.js';

/**
 * What shows that the installer itself asks for a release (DESIGN §23): its install token (verified for
 * this activation by the route, expiry ignored; its jti is compared here), or, without one, the address
 * the install came from (the client's rate-limit address key, hashed as events keep it: the same IPv4
 * address, the same IPv6 /64): the activate's, or the precheck's whose token made the activation. Only
 * that precheck counts: it was made before the activation, by whoever held its token, where a later
 * precheck naming the machine (its id is no secret) proves nothing about who asks.
 */
export type ReleaseProof =
  | { kind: 'install_token'; jti: string }
  | { kind: 'address'; clientKeyHash: string; tokenRequired: boolean };

// `:client_key_hash` the release's hashed client key; `:since` a day before the activation was made (its
// activation.created event is written with it: the events' older partitions are not read).
type ProvenParams = { activation_id: string; since: string; client_key_hash: string };

const PROVEN = namedStatement<ProvenParams>(`
select exists (
    select 1 from events
    where activation_id = :activation_id and type = 'activation.created' and client_key_hash = :client_key_hash
      and occurred_at >= :since::timestamptz) as proven`);

/** Throws 401 `install_token_invalid` or 403 `release_not_allowed` unless `proof` holds for this activation. Read before its state. */
export async function assertReleaseProof(
  tx: Database,
  activation: { id: string; installTokenJtiHash: string; precheckClientKeyHash: string | null; createdAt: Date },
  proof: ReleaseProof,
): Promise<void> {
  if (proof.kind === 'install_token') return assertInstallTokenJti(activation, proof.jti);
  if (proof.tokenRequired)
    throw new ApiError('release_not_allowed', 'This service releases an activation only with its install_token.');
  if (activation.precheckClientKeyHash === proof.clientKeyHash) return;
  const [row] = await runStatement<{ proven: boolean }, ProvenParams>(tx, PROVEN, {
    activation_id: activation.id,
    since: new Date(activation.createdAt.getTime() - 86_400_000).toISOString(),
    client_key_hash: proof.clientKeyHash,
  });
  if (!row?.proven) throw new ApiError('release_not_allowed');
}
