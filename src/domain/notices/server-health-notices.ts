import { composedStatement, sqlPiece } from '../../db/composed-statement.js';
import type { Database } from '../../db/database.js';
import { runStatement } from '../../db/statement.js';
import { healthCutoffs, type HealthThresholds } from '../admin-lists/server-list.js';
import type { EventType } from '../events/event-trail.js';
import type { ServiceDowntime } from './notice-watch.js';

type HealthParams = {
  now: string;
  stale_before: string;
  dead_before: string;
  down_from: string | null;
  down_until: string | null;
  batch: string;
};

/**
 * A server's last sign of life (its last check-in, or its registration) moved past the service's last
 * downtime by as much of that downtime as came after it: silence while the service was down is not counted.
 */
const LAST_SIGN = sqlPiece(
  ['down_from', 'down_until'],
  `case when :down_until::timestamptz > coalesce(s.last_seen_at, s.registered_at)
     then coalesce(s.last_seen_at, s.registered_at) + (:down_until::timestamptz - greatest(:down_from::timestamptz, coalesce(s.last_seen_at, s.registered_at)))
     else coalesce(s.last_seen_at, s.registered_at) end`,
);

/** The health the gauges derive (§11), on that last sign of life. */
const HEALTH = sqlPiece(
  ['down_from', 'down_until', 'stale_before', 'dead_before'],
  `case when (${LAST_SIGN.text}) < :dead_before::timestamptz then 'dead'
        when (${LAST_SIGN.text}) < :stale_before::timestamptz then 'stale' else 'active' end`,
);

/**
 * One batch: active servers whose health is no longer the one last announced move `notified_health` and
 * write their event in the same statement (`went_stale`, `went_dead`, or `recovered` once checking in again).
 * Rows locked elsewhere (a check-in, another instance's pass) are skipped and seen by the next batch or pass;
 * a row another pass moved meanwhile is read again under its lock and no longer qualifies: once each.
 * Revoked servers are never told about.
 */
const MOVE_HEALTH = composedStatement<HealthParams>()`with batch as (
  select s.id, s.notified_health as previous, ${HEALTH} as health, coalesce(s.last_seen_at, s.registered_at) as last_seen
  from servers s
  where s.status = 'active' and s.notified_health <> ${HEALTH}
  limit :batch::int
  for update of s skip locked
), moved as (
  update servers s set notified_health = b.health from batch b where s.id = b.id
  returning s.id, s.activation_id, s.hostname, s.tags, b.previous, b.health, b.last_seen
), recorded as (
  insert into events (type, server_id, activation_id, data, occurred_at, actor)
  select case m.health when 'active' then 'server.recovered' when 'stale' then 'server.went_stale' else 'server.went_dead' end,
    m.id, m.activation_id,
    jsonb_build_object('hostname', m.hostname, 'tags', m.tags, 'health', m.health, 'previous_health', m.previous,
      'last_seen_at', to_char(m.last_seen at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
    :now::timestamptz, 'service'
  from moved m returning type
)
select (select json_agg(type) from recorded) as recorded`;

/** One batch of health transitions; answers the event types written (as many as servers moved). */
export async function moveServerHealth(
  db: Database,
  {
    now,
    thresholds,
    downtime,
    batch,
  }: { now: Date; thresholds: HealthThresholds; downtime: ServiceDowntime | undefined; batch: number },
): Promise<EventType[]> {
  const { staleBefore, deadBefore } = healthCutoffs(now, thresholds);
  const [row] = await runStatement<{ recorded: EventType[] | null }, HealthParams>(db, MOVE_HEALTH, {
    now: now.toISOString(),
    stale_before: new Date(staleBefore).toISOString(),
    dead_before: new Date(deadBefore).toISOString(),
    down_from: downtime?.from.toISOString() ?? null,
    down_until: downtime?.until.toISOString() ?? null,
    batch: String(batch),
  });
  return row?.recorded ?? [];
}
