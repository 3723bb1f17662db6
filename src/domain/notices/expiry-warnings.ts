import { composedStatement, sqlPiece } from '../../db/composed-statement.js';
import type { Database } from '../../db/database.js';
import { runStatement } from '../../db/statement.js';
import type { EventType } from '../events/event-trail.js';
import { heldUses } from '../install-codes/fleet-uses.js';

/** A fleet code with free uses is warned of this long before it expires (DESIGN §28). */
const CODE_WARNING_SECONDS = 24 * 3600;
/** An operator token, this long before. */
const TOKEN_WARNING_SECONDS = 7 * 24 * 3600;

type WarnParams = { now: string; warn_until: string; batch: string };

const isoText = (column: string) =>
  sqlPiece([], `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/*
 * "Created well before the warning": an object whose whole life is shorter than twice its warning's lead
 * (a code made for a day, a token for a week) is warned of nothing: whoever made it knows when it ends.
 * `expiry_warned_at` is set in the statement that writes the event, so each is warned of once, whichever
 * instance runs the pass; rows locked elsewhere are left to the next batch, and a row another pass warned
 * meanwhile is read again under its lock and no longer qualifies.
 */
const WELL_BEFORE = (created: string, expires: string) =>
  sqlPiece(['now', 'warn_until'], `${created} <= ${expires} - 2 * (:warn_until::timestamptz - :now::timestamptz)`);

const WARN_CODES = composedStatement<WarnParams>()`with batch as (
  select c.id from install_codes c
  where c.expires_at > :now::timestamptz and c.expires_at <= :warn_until::timestamptz and c.expiry_warned_at is null
    and c.operator is not null and c.status = 'issued' and ${WELL_BEFORE('c.issued_at', 'c.expires_at')}
    and (c.uses = 1 or c.uses_spent + ${heldUses('c')} < c.uses)
  order by c.expires_at limit :batch::int
  for update of c skip locked
), warned as (
  update install_codes c set expiry_warned_at = :now::timestamptz from batch where c.id = batch.id
  returning c.id, c.hint, c.description, c.tags, c.uses, c.uses_spent, c.expires_at, c.operator
), recorded as (
  insert into events (type, install_code_id, data, occurred_at, actor)
  select 'install_code.expiry_warned', w.id,
    jsonb_build_object('hint', w.hint, 'description', w.description, 'tags', w.tags, 'uses', w.uses,
      'uses_spent', w.uses_spent, 'issued_by', w.operator, 'expires_at', ${isoText('w.expires_at')}),
    :now::timestamptz, 'service'
  from warned w returning type
)
select (select json_agg(type) from recorded) as recorded`;

const WARN_TOKENS = composedStatement<WarnParams>()`with batch as (
  select t.id from operator_tokens t
  where t.expires_at > :now::timestamptz and t.expires_at <= :warn_until::timestamptz and t.expiry_warned_at is null
    and t.revoked_at is null and ${WELL_BEFORE('t.created_at', 't.expires_at')}
  order by t.expires_at limit :batch::int
  for update of t skip locked
), warned as (
  update operator_tokens t set expiry_warned_at = :now::timestamptz from batch where t.id = batch.id
  returning t.id, t.name, t.scope, t.expires_at
), recorded as (
  insert into events (type, data, occurred_at, actor)
  select 'operator_token.expiry_warned',
    jsonb_build_object('operator_token_id', w.id, 'name', w.name, 'scope', w.scope, 'expires_at', ${isoText('w.expires_at')}),
    :now::timestamptz, 'service'
  from warned w returning type
)
select (select json_agg(type) from recorded) as recorded`;

async function warn(db: Database, statement: typeof WARN_CODES, now: Date, leadSeconds: number, batch: number) {
  const [row] = await runStatement<{ recorded: EventType[] | null }, WarnParams>(db, statement, {
    now: now.toISOString(),
    warn_until: new Date(now.getTime() + leadSeconds * 1000).toISOString(),
    batch: String(batch),
  });
  return row?.recorded ?? [];
}

/** One batch of `install_code.expiry_warned`: fleet codes with a use free, expiring within a day. */
export function warnExpiringCodes(db: Database, now: Date, batch: number): Promise<EventType[]> {
  return warn(db, WARN_CODES, now, CODE_WARNING_SECONDS, batch);
}

/** One batch of `operator_token.expiry_warned`: unrevoked tokens expiring within a week. */
export function warnExpiringTokens(db: Database, now: Date, batch: number): Promise<EventType[]> {
  return warn(db, WARN_TOKENS, now, TOKEN_WARNING_SECONDS, batch);
}
