import type { Database } from '../../db/database.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement } from '../../db/statement.js';
import { noteEndpointOutcome } from './endpoint-outcome.js';
import { RETRY_DELAYS_SECONDS, RETRY_JITTER } from './retry-schedule.js';
import type { AttemptOutcome } from './sender.js';

/** A chat endpoint gets at most one message a minute (DESIGN §28): what came meanwhile goes in the next, a digest. */
const CHAT_MESSAGE_SPACING_MS = 60_000;
/** Events one digest takes at most (it lists a few and counts them all): a storm drains in a message a minute. */
const DIGEST_MAX_EVENTS = 10_000;

export interface ChatMessageClaim {
  endpointId: string;
  format: 'slack' | 'discord' | 'teams' | 'google_chat';
  /** The deliveries the message carries, oldest first, each with the Standard Webhooks body made at dispatch. */
  deliveries: { id: string; payload: string }[];
}

type ClaimParams = { now: string; next_message_at: string; leased_until: string; lease_id: string; max: string };

/*
 * One chat endpoint whose next message is due (`send_after` passed, enabled, with a due delivery), taken with
 * its row locked (SKIP LOCKED: another instance takes another endpoint) and its next message set a minute on
 * in the same statement: however many instances run, it gets one message a minute. Its due deliveries are
 * leased together; no transaction stays open over the HTTP call.
 */
const CLAIM_CHAT = namedStatement<ClaimParams>(`
with endpoint as (
  select w.id, w.format from webhook_endpoints w
  where w.status = 'enabled' and w.format <> 'standard' and (w.send_after is null or w.send_after <= :now::timestamptz)
    and exists (select from webhook_deliveries d where d.endpoint_id = w.id and d.status = 'pending'
      and d.next_attempt_at <= :now::timestamptz and (d.leased_until is null or d.leased_until <= :now::timestamptz))
  order by w.send_after nulls first, w.id limit 1
  for update of w skip locked
), spaced as (
  update webhook_endpoints w set send_after = :next_message_at::timestamptz from endpoint where w.id = endpoint.id
  returning w.id, w.format
), taken as (
  select d.id from webhook_deliveries d join spaced on d.endpoint_id = spaced.id
  where d.status = 'pending' and d.next_attempt_at <= :now::timestamptz
    and (d.leased_until is null or d.leased_until <= :now::timestamptz)
  order by d.created_at, d.event_id, d.id limit :max::int
  for update of d skip locked
), leased as (
  update webhook_deliveries d set leased_until = :leased_until::timestamptz, lease_id = :lease_id from taken
  where d.id = taken.id returning d.id, d.payload, d.created_at, d.event_id
)
select spaced.id as endpoint_id, spaced.format,
  (select json_agg(json_build_object('id', l.id, 'payload', l.payload) order by l.created_at, l.event_id, l.id) from leased l) as deliveries
from spaced`);

export async function claimChatMessage(
  db: Database,
  { now, leaseMs, leaseId }: { now: Date; leaseMs: number; leaseId: string },
): Promise<ChatMessageClaim | undefined> {
  const [row] = await runStatement<
    { endpoint_id: string; format: ChatMessageClaim['format']; deliveries: ChatMessageClaim['deliveries'] | null },
    ClaimParams
  >(db, CLAIM_CHAT, {
    now: now.toISOString(),
    next_message_at: new Date(now.getTime() + CHAT_MESSAGE_SPACING_MS).toISOString(),
    leased_until: new Date(now.getTime() + leaseMs).toISOString(),
    lease_id: leaseId,
    max: String(DIGEST_MAX_EVENTS),
  });
  if (!row?.deliveries?.length) return undefined;
  return { endpointId: row.endpoint_id, format: row.format, deliveries: row.deliveries };
}

type RecordParams = {
  ids: string;
  lease_id: string;
  at: string;
  delivered: boolean;
  duration_ms: string;
  status_code: string | null;
  error: string | null;
  excerpt: string | null;
};

/** Every delivery of the message gets the attempt; still under this lease only (one that expired was taken over). */
const RECORD_ATTEMPTS = namedStatement<RecordParams>(`
with mine as (
  select id from webhook_deliveries where id in (select json_array_elements_text(:ids::json)) and lease_id = :lease_id
), attempted as (
  insert into webhook_attempts (delivery_id, attempted_at, duration_ms, status_code, error, response_excerpt)
  select id, :at::timestamptz, :duration_ms::int, :status_code::int, :error, :excerpt from mine
)
update webhook_deliveries d set
  attempts = d.attempts + 1, last_attempt_at = :at::timestamptz, leased_until = null, lease_id = null,
  status = case when :delivered::boolean then 'delivered' when d.attempts + 1 > ${RETRY_DELAYS_SECONDS.length} then 'failed' else 'pending' end,
  delivered_at = case when :delivered::boolean then :at::timestamptz else d.delivered_at end,
  next_attempt_at = case when :delivered::boolean or d.attempts + 1 > ${RETRY_DELAYS_SECONDS.length} then d.next_attempt_at
    else :at::timestamptz + make_interval(secs => (array[${RETRY_DELAYS_SECONDS.join(', ')}])[d.attempts + 1]
      * (1 + ${RETRY_JITTER} * (2 * random() - 1))) end
from mine where d.id = mine.id
returning d.status`);

/**
 * Records one chat message's attempt for every delivery it carried, in one transaction: delivered together,
 * or each tried again on §15's schedule (no sooner than the endpoint's next message), or `failed` when its
 * schedule is done. The endpoint's health follows, a 429 delaying it. Answers the outcome of each delivery.
 */
export async function recordChatAttempt(
  db: Database,
  {
    claim,
    leaseId,
    outcome,
    attemptedAt,
  }: { claim: ChatMessageClaim; leaseId: string; outcome: AttemptOutcome; attemptedAt: Date },
): Promise<('delivered' | 'retrying' | 'failed')[]> {
  return db.transaction(async (tx) => {
    const rows = await runStatement<{ status: 'pending' | 'delivered' | 'failed' }, RecordParams>(tx, RECORD_ATTEMPTS, {
      ids: JSON.stringify(claim.deliveries.map((d) => d.id)),
      lease_id: leaseId,
      at: attemptedAt.toISOString(),
      delivered: outcome.delivered,
      duration_ms: String(outcome.durationMs),
      status_code: outcome.statusCode === null ? null : String(outcome.statusCode),
      error: outcome.error,
      excerpt: outcome.responseExcerpt,
    });
    await noteEndpointOutcome(tx, { endpointId: claim.endpointId, outcome, attemptedAt });
    return rows.map((r) => (r.status === 'pending' ? 'retrying' : r.status));
  });
}
