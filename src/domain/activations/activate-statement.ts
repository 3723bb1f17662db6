import { composedStatement, sqlPiece } from '../../db/composed-statement.js';
import {
  EVENT_CONTEXT_COLUMNS,
  EVENT_CONTEXT_VALUES,
  RECORDED_COLUMN,
  type EventContextParams,
} from '../events/event-trail.js';
import { heldUses } from '../install-codes/fleet-uses.js';
import { COUNTED_CTE, COUNTS_COLUMN, type BucketsParam } from '../rate-limits/limiter.js';

// `duplicate`: the install this machine's identity is bound to already (DESIGN §16, §24): its machine_id with
// another ssh_fingerprint, or its ssh_fingerprint with another machine_id (a cloned image; `ssh_host_key` when both
// proved that key, `ssh_fingerprint` otherwise), held by an activation that is confirmed (its server, if any, not
// revoked) or has a live server. A machine_id match is preferred, a proven one first, then the newest. A released
// activation, or the same machine again (same pair), is none.
// `refused` (DUPLICATE_MACHINE_POLICY=refuse): only an activate that proves no key, whose machine_id is bound to
// another key that was proven (DESIGN §24). A machine_id is no secret and a fingerprint can be scanned: no one who
// merely read them, and no one who proved another key, can block a machine that proves its own.
// `:precheck_id` is the token's (a code issued with approval is claimed only once the person approved that precheck).
export type ActivateParams = BucketsParam &
  EventContextParams & {
    code_hash: string;
    id: string;
    hostname: string;
    public_ip: string;
    machine_id: string;
    ssh_fingerprint: string;
    ssh_key_proven: boolean;
    requested_ref: string;
    installer_version: string;
    install_token_jti_hash: string;
    install_token_expires_at: string;
    precheck_jti_hash: string | null;
    precheck_client_key_hash: string | null;
    /** The data of `activation.created`. */
    created_data: string;
    /** Tags taken from an identity token's claims (DESIGN §25), added to the code's: JSON, `{}` for none. */
    claim_tags: string;
    /** DUPLICATE_MACHINE_POLICY=refuse. */
    refuse_duplicate: boolean;
    precheck_id: string | null;
  };

/**
 * The claim of a code: a page code (and an operator's `uses: 1` code) goes `issued` → `activated`, its event
 * `install_code.activated`; a code with `uses` > 1 (DESIGN §22) stays `issued` and takes a use while one is free
 * (its row is locked first, so this statement sees every use taken before it) and the precheck token has made no
 * activation yet, its event `install_code.exhausted` when it took the last free use. Either returns `id`, `tags`
 * and `code_event` (whether its event is due).
 */
const CLAIMS = {
  single: sqlPiece(
    ['now', 'code_hash', 'precheck_id'],
    `update install_codes set status = 'activated', last_used_at = :now::timestamptz
    where code_hash = :code_hash and status = 'issued' and uses = 1 and expires_at > :now::timestamptz
    and (not require_approval or exists (select from install_code_prechecks p
      where p.id = :precheck_id and p.install_code_id = install_codes.id and p.decision = 'approved'))
    and not (select refused from refused) returning id, tags, true as code_event`,
  ),
  fleet: sqlPiece(
    ['now', 'code_hash', 'precheck_jti_hash'],
    `update install_codes set last_used_at = :now::timestamptz
    where code_hash = :code_hash and status = 'issued' and uses > 1 and expires_at > :now::timestamptz
    and uses_spent + ${heldUses('install_codes').text} < uses
    and not exists (select from activations p where p.install_code_id = install_codes.id and p.precheck_jti_hash = :precheck_jti_hash)
    and not (select refused from refused)
    returning id, tags, uses_spent + ${heldUses('install_codes').text} + 1 >= uses as code_event`,
  ),
};

const CODE_EVENTS = {
  single: sqlPiece([], `'install_code.activated'`),
  fleet: sqlPiece([], `'install_code.exhausted'`),
};

function activateStatement(claim: keyof typeof CLAIMS) {
  return composedStatement<ActivateParams>()`with ${COUNTED_CTE},
duplicate as (
  select a.id, a.machine_id = :machine_id as machine_match, a.ssh_key_proven, a.ssh_key_proven and :ssh_key_proven::boolean as key_match
  from activations a left join servers s on s.activation_id = a.id
  where ((a.machine_id = :machine_id and a.ssh_fingerprint <> :ssh_fingerprint) or (a.ssh_fingerprint = :ssh_fingerprint and a.machine_id <> :machine_id))
    and (s.status = 'active' or (a.status = 'confirmed' and s.id is null))
  order by (a.machine_id = :machine_id) desc, a.ssh_key_proven desc, a.created_at desc limit 1),
refused as (
  select :refuse_duplicate::boolean and not :ssh_key_proven::boolean
    and exists (select 1 from duplicate d where d.machine_match and d.ssh_key_proven) as refused),
claimed as (
  ${CLAIMS[claim]}),
created as (
  insert into activations (id, install_code_id, status, hostname, public_ip, machine_id, ssh_fingerprint, ssh_key_proven, requested_ref, installer_version,
    install_token_jti_hash, install_token_expires_at, precheck_jti_hash, precheck_client_key_hash, created_at, duplicate_of, tags)
  select :id, claimed.id, 'activated', :hostname, :public_ip, :machine_id, :ssh_fingerprint, :ssh_key_proven::boolean, :requested_ref, :installer_version, :install_token_jti_hash, :install_token_expires_at::timestamptz, :precheck_jti_hash, :precheck_client_key_hash, :now::timestamptz, (select id from duplicate), claimed.tags || :claim_tags::jsonb from claimed
  returning id, install_code_id, duplicate_of, tags),
recorded as (
  insert into events (type, install_code_id, activation_id, data, ${EVENT_CONTEXT_COLUMNS})
  select e.type, created.install_code_id, created.id,
    coalesce(
      case when e.n = 2 and created.tags <> '{}'::jsonb then e.data || jsonb_build_object('tags', created.tags) else e.data end,
      jsonb_build_object('duplicate_of', d.id, 'match',
        case when d.machine_match then 'machine_id' when d.key_match then 'ssh_host_key' else 'ssh_fingerprint' end)),
    ${EVENT_CONTEXT_VALUES}
  from created cross join claimed cross join (
    values (1, ${CODE_EVENTS[claim]}, '{}'::jsonb), (2, 'activation.created', :created_data::jsonb), (3, 'activation.duplicate_detected', null)
  ) as e(n, type, data)
  left join duplicate d on e.n = 3
  where (e.n = 1 and claimed.code_event) or e.n = 2 or d.id is not null
  order by e.n
  returning type)
select ${COUNTS_COLUMN}, ${RECORDED_COLUMN}, (select install_code_id from created) as install_code_id, (select duplicate_of from created) as duplicate_of,
  (select tags from created) as tags, (select refused from refused) as refused`;
}

export const ACTIVATE = { single: activateStatement('single'), fleet: activateStatement('fleet') };
