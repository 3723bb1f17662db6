import { findActivation } from './activation-rows.js';

import type { Database } from '../../db/database.js';
import { composedStatement } from '../../db/composed-statement.js';
import { runStatement } from '../../db/statement.js';
import { ApiError } from '../../errors.js';
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
import { sha256Hex } from '../tokens/secret-hash.js';
import type { ConfirmedInstall } from './receipts.js';
import { assertInstallTokenJti } from '../tokens/install-step-tokens.js';

type ConfirmParams = EventContextParams & { activation_id: string; install_token_jti_hash: string };

const CONFIRM = composedStatement<ConfirmParams>()`with confirmed as (
  update activations set status = 'confirmed', install_token_used_at = :now::timestamptz, confirmed_at = :now::timestamptz
  where id = :activation_id and install_token_jti_hash = :install_token_jti_hash and status = 'activated' and install_token_used_at is null and install_token_expires_at > :now::timestamptz
  returning id, install_code_id, hostname, public_ip, machine_id, ssh_fingerprint, ssh_key_proven, requested_ref, installer_version, tags),
-- A code with uses > 1 stays issued: confirm spends the use its activation held (DESIGN §22).
consumed as (
  update install_codes set status = case when install_codes.uses = 1 then 'consumed' else install_codes.status end, uses_spent = uses_spent + 1
  from confirmed where install_codes.id = confirmed.install_code_id returning install_codes.uses),
recorded as (
  insert into events (type, install_code_id, activation_id, data, ${EVENT_CONTEXT_COLUMNS})
  select e.type, confirmed.install_code_id, confirmed.id, '{}'::jsonb, ${EVENT_CONTEXT_VALUES}
  from confirmed cross join consumed cross join (values (1, 'activation.confirmed'), (2, 'install_code.consumed')) as e(n, type)
  where e.n = 1 or consumed.uses = 1 order by e.n
  returning type)
select id, install_code_id, hostname, public_ip, machine_id, ssh_fingerprint, ssh_key_proven, requested_ref, installer_version, tags, ${RECORDED_COLUMN}
from confirmed`;

interface ConfirmedRow {
  recorded: EventType[] | null;
  id: string;
  install_code_id: string;
  hostname: string;
  public_ip: string;
  machine_id: string;
  ssh_fingerprint: string;
  ssh_key_proven: boolean;
  requested_ref: string;
  installer_version: string;
  tags: Record<string, string>;
}

/**
 * One statement: consumes the install token (its jti must match, be unused and unexpired) as it confirms
 * the activation, marks the code `consumed` and records both events. Usable once, across all instances.
 * Only a refused confirm reads the activation again, to say why.
 */
export async function confirmActivation(
  db: Database,
  {
    activationId,
    jti,
    now,
    context,
  }: { activationId: string /** The install token's jti. */; jti: string; now: Date; context: ChangeContext },
): Promise<ConfirmedInstall> {
  const [confirmed] = await runStatement<ConfirmedRow, ConfirmParams>(db, CONFIRM, {
    activation_id: activationId,
    install_token_jti_hash: sha256Hex(jti),
    ...eventContextParams(context, now),
  });
  if (confirmed) {
    noteRecorded(context, confirmed.recorded);
    return {
      id: confirmed.id,
      installCodeId: confirmed.install_code_id,
      hostname: confirmed.hostname,
      publicIp: confirmed.public_ip,
      machineId: confirmed.machine_id,
      sshFingerprint: confirmed.ssh_fingerprint,
      sshKeyProven: confirmed.ssh_key_proven,
      requestedRef: confirmed.requested_ref,
      installerVersion: confirmed.installer_version,
      tags: confirmed.tags,
      // The statement's own parameter: the same instant whatever form the driver gives the column in.
      confirmedAt: now,
    };
  }
  const current = await findActivation(db, activationId);
  assertInstallTokenJti(current, jti);
  // The confirm that succeeded, read back from the row: the same claims and time, so the same receipt. A
  // repeat by the token's holder (an answer a failover swallowed, DESIGN §20) writes nothing, so nothing is counted.
  if (current.status === 'confirmed' && current.confirmedAt)
    return {
      id: current.id,
      installCodeId: current.installCodeId,
      hostname: current.hostname,
      publicIp: current.publicIp,
      machineId: current.machineId,
      sshFingerprint: current.sshFingerprint,
      sshKeyProven: current.sshKeyProven,
      requestedRef: current.requestedRef,
      installerVersion: current.installerVersion,
      confirmedAt: current.confirmedAt,
      tags: current.tags,
    };
  if (current.status === 'confirmed') throw new ApiError('install_token_used');
  if (current.status === 'released') throw new ApiError('activation_released');
  throw new ApiError('install_token_invalid');
}
