import { installTokenUsable } from './activation-rows.js';
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { composedStatement } from '../../db/composed-statement.js';
import { runStatement } from '../../db/statement.js';
import { activations } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import {
  EVENT_CONTEXT_COLUMNS,
  EVENT_CONTEXT_VALUES,
  eventContextParams,
  noteRecorded,
  operatorEventData,
  RECORDED_COLUMN,
  type ChangeContext,
  type EventContextParams,
  type EventType,
} from '../events/event-trail.js';
import { assertReleaseProof, type ReleaseProof } from './release-proof.js';

/**
 * Releases an unconfirmed activation. The code goes back to `issued`, keeping its original expiry,
 * only while the install token is unused and unexpired and the code itself has not expired. With
 * `code: 'revoke'` (an operator, or the browser that issued the code, stopping an install) the code is
 * revoked instead and can never be used again.
 * A server registered for the activation is revoked with it: a failed install must not leave a live
 * agent token behind. Idempotent: releasing a released activation answers what the first release
 * answered, and records nothing more.
 */
export interface ReleaseResult {
  activationId: string;
  codeRestored: boolean;
  /** False for a repeated release, which changes nothing. */
  released: boolean;
  /** Whether a server registered for the activation was revoked by this release. */
  serverRevoked: boolean;
}

// `:restore_code`: restore the code (else revoke it); `:install_token_usable`: the install token is unused and unexpired;
// `:operator_data`: what an operator's change adds to each event's data; `:release_data` the release's own (`release_proof`).
type ReleaseParams = EventContextParams & {
  activation_id: string;
  restore_code: boolean;
  install_token_usable: boolean;
  operator_data: string;
  release_data: string;
};

const RELEASE = composedStatement<ReleaseParams>()`with released as (
  update activations set status = 'released', released_at = :now::timestamptz,
    -- A page code (or a fleet code for one use) is restored while the install token is usable; a code with
    -- uses > 1 stays issued and gets this use back whatever the token (an expired one gave it back already).
    code_restored = :restore_code::boolean
      and exists (select 1 from install_codes c where c.id = activations.install_code_id and c.expires_at > :now::timestamptz
        and case when c.uses > 1 then c.status = 'issued' else c.status = 'activated' and :install_token_usable::boolean end)
  where id = :activation_id and status = 'activated'
  returning id, install_code_id, code_restored),
revoked_servers as (
  update servers set status = 'revoked', revoked_at = :now::timestamptz from released
  where servers.activation_id = released.id and servers.status = 'active' returning servers.id),
restored as (
  -- A restored code starts afresh: the precheck before the failed install is history, not news; its prechecks go, and
  -- with them a decision (it is asked again).
  update install_codes set status = 'issued', prechecked_at = null, precheck_machine_id = null, precheck_ssh_fingerprint = null, precheck_ip = null
  from released where install_codes.id = released.install_code_id and released.code_restored and install_codes.uses = 1 returning install_codes.id),
forgotten_prechecks as (
  delete from install_code_prechecks using restored where install_code_prechecks.install_code_id = restored.id),
revoked_code as (
  update install_codes set status = 'revoked', revoked_at = :now::timestamptz
  from released where not :restore_code::boolean and install_codes.id = released.install_code_id and install_codes.status = 'activated' returning install_codes.id),
changes as (
  select 1 as n, 'activation.released' as type, null::text as server_id,
    json_build_object('install_code_restored', released.code_restored, 'released_by', :actor::text)::jsonb || :release_data::jsonb as data from released
  union all select 2, 'install_code.restored', null, '{}'::jsonb from restored
  union all select 3, 'install_code.revoked', null, '{}'::jsonb from revoked_code
  union all select 4, 'server.revoked', revoked_servers.id, '{"cause":"activation_released"}'::jsonb from revoked_servers),
recorded as (
  insert into events (type, install_code_id, activation_id, server_id, data, ${EVENT_CONTEXT_COLUMNS})
  select changes.type, released.install_code_id, released.id, changes.server_id, changes.data || :operator_data::jsonb, ${EVENT_CONTEXT_VALUES}
  from changes cross join released order by changes.n, changes.server_id
  returning type)
select code_restored, (select count(*) from revoked_servers)::int as revoked_servers, ${RECORDED_COLUMN} from released`;

/**
 * Two statements in one transaction: the activation is locked and read (a register holding it is
 * waited for, so the server it made is seen), then one statement makes every change and its events:
 * the release, the server revoked, the code restored or revoked.
 */
export async function releaseActivation(
  db: Database,
  {
    activationId,
    now,
    context,
    code = 'restore',
    proof,
  }: { activationId: string; now: Date; context: ChangeContext; code?: 'restore' | 'revoke'; proof?: ReleaseProof },
): Promise<ReleaseResult> {
  return db.transaction(async (tx) => {
    // Locked before the server, in the order register takes them, so a concurrent register waits and then sees `released`.
    const [current] = await tx.select().from(activations).where(eq(activations.id, activationId)).for('update');
    if (!current) throw new ApiError('activation_not_found');
    // The installer's proof, before the state: a repeat without it is refused as the first one would be.
    if (proof) await assertReleaseProof(tx, current, proof);
    if (current.status === 'confirmed') throw new ApiError('activation_confirmed');
    if (current.status === 'released')
      return { activationId, codeRestored: current.codeRestored ?? false, released: false, serverRevoked: false };
    type Row = { code_restored: boolean; revoked_servers: number; recorded: EventType[] | null };
    const [row] = await runStatement<Row, ReleaseParams>(tx, RELEASE, {
      activation_id: activationId,
      restore_code: code === 'restore',
      install_token_usable: installTokenUsable(current, now),
      operator_data: JSON.stringify(operatorEventData(context)),
      release_data: JSON.stringify(proof ? { release_proof: proof.kind } : {}),
      ...eventContextParams(context, now),
    });
    noteRecorded(context, row!.recorded);
    return { activationId, codeRestored: row!.code_restored, released: true, serverRevoked: row!.revoked_servers > 0 };
  });
}
