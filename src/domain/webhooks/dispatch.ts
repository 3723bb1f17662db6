import type { Database } from '../../db/database.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement } from '../../db/statement.js';

/** Events handed to deliveries per statement: one short transaction each. */
const DISPATCH_BATCH = 200;
/**
 * The dispatch reads the events of the last 14 days only (events are partitioned by day: the older
 * partitions are never read). An event still undispatched after 14 days (no instance ran the pass for
 * that long) is not sent: a delivery would be retried for 5 days at most anyway.
 */
export const DISPATCH_WINDOW_MS = 14 * 86_400_000;

/**
 * The outbox step: events not yet dispatched (`delivered_at is null`, whatever their id: ids commit
 * out of order, so no cursor) become one delivery per endpoint subscribed to their type, enabled or
 * paused, and are marked dispatched, in one transaction. `SKIP LOCKED`: two instances take different
 * events. The body is made here, once, so every attempt sends the same bytes. An endpoint never gets
 * the event of its own creation. Body per Standard Webhooks: `{type, timestamp, data}`, `data` the
 * event's ids, actor and its own fields (never a secret: events hold none).
 *
 * With no endpoint at all nothing is taken and nothing written (DESIGN §23): events stay undispatched,
 * and creating the first endpoint marks them dispatched in its own transaction (createWebhookEndpoint),
 * so an endpoint still receives exactly the events committed after its creation.
 */
const DISPATCH = namedStatement<{ now: string; since: string }>(`
with batch as (
  select id, occurred_at from events
  where delivered_at is null and occurred_at >= :since::timestamptz and exists (select 1 from webhook_endpoints)
  order by id limit ${DISPATCH_BATCH} for update skip locked
), made as (
  insert into webhook_deliveries (id, endpoint_id, event_id, message_id, event_type, payload, status, attempts, next_attempt_at, created_at)
  select 'whd_' || substr(md5(random()::text || clock_timestamp()::text || e.id::text || w.id), 1, 16), w.id, e.id, 'evt_' || e.id, e.type,
    jsonb_build_object(
      'type', e.type,
      'timestamp', to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'data', jsonb_strip_nulls(jsonb_build_object('event_id', e.id, 'install_code_id', e.install_code_id, 'activation_id', e.activation_id, 'server_id', e.server_id, 'actor', e.actor)) || e.data
    )::text,
    'pending', 0, :now::timestamptz, :now::timestamptz
  from events e
  join batch on batch.id = e.id and batch.occurred_at = e.occurred_at
  join webhook_endpoints w on w.status <> 'disabled'
    and (w.event_types @> '["*"]'::jsonb or w.event_types @> jsonb_build_array(e.type))
    and not (e.type = 'webhook_endpoint.created' and e.data->>'webhook_endpoint_id' = w.id)
  on conflict (endpoint_id, event_id) do nothing
  returning 1
), marked as (
  update events set delivered_at = :now::timestamptz from batch
  where events.id = batch.id and events.occurred_at = batch.occurred_at returning 1
)
select (select count(*) from marked)::int as events, (select count(*) from made)::int as deliveries`);

/** Dispatches every undispatched event, batch by batch; answers how many events and deliveries. */
export async function dispatchEvents(db: Database, now: Date): Promise<{ events: number; deliveries: number }> {
  const total = { events: 0, deliveries: 0 };
  for (;;) {
    const [row] = await runStatement<{ events: number; deliveries: number }, { now: string; since: string }>(
      db,
      DISPATCH,
      { now: now.toISOString(), since: new Date(now.getTime() - DISPATCH_WINDOW_MS).toISOString() },
    );
    total.events += row!.events;
    total.deliveries += row!.deliveries;
    if (row!.events < DISPATCH_BATCH) return total;
  }
}
