import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { activations, installCodes, servers, webhookDeliveries } from '../../db/schema.js';
import { timestampOf } from '../../db/statement.js';
import { healthCondition, type HealthThresholds, type ServerHealth } from './server-list.js';

/** The statuses an unexpired install code can have (an `issued` code past its expiry is no longer counted). */
export const LIVE_INSTALL_CODE_STATUSES = ['issued', 'activated', 'consumed', 'revoked'] as const;
export const SERVER_HEALTHS = ['active', 'stale', 'dead', 'revoked'] as const satisfies readonly ServerHealth[];

/** The fleet as the gauges of /metrics and the console show it, at one instant. */
export interface StateCounts {
  servers: Record<ServerHealth, number>;
  /** Unexpired install codes by status. */
  installCodes: Record<(typeof LIVE_INSTALL_CODE_STATUSES)[number], number>;
  /** Activations neither confirmed nor released whose install token can still confirm them. */
  activationsAwaitingConfirm: number;
  /** Webhook messages not yet delivered and still to be tried. */
  webhookDeliveriesPending: number;
  /** Age of the oldest of them; 0 when none is pending. */
  oldestPendingWebhookAgeSeconds: number;
}

/*
 * One statement, each table read once. Codes and activations are read through an index on an expiry
 * (only the live ones: a few minutes' or an hour's worth), pending deliveries through their partial index;
 * servers are counted whole (their health follows from each one's last check-in, which is not indexed so
 * that a check-in stays a HOT update): docs/measurements.md has its cost at a million.
 */
function fleetStatement(now: Date, thresholds: HealthThresholds): SQL {
  const at = sql`${now.toISOString()}::timestamptz`;
  const health = (h: ServerHealth) => sql`count(*) filter (where ${healthCondition(h, now, thresholds)})::int`;
  const code = (status: string) => sql`count(*) filter (where ${installCodes.status} = ${status})::int`;
  return sql`
    with s as (
      select ${health('active')} as active, ${health('stale')} as stale, ${health('dead')} as dead, ${health('revoked')} as revoked from ${servers}
    ), c as (
      select ${code('issued')} as issued, ${code('activated')} as activated, ${code('consumed')} as consumed, ${code('revoked')} as revoked
      from ${installCodes} where ${installCodes.expiresAt} > ${at}
    ), a as (
      select count(*)::int as awaiting from ${activations} where ${activations.installTokenExpiresAt} > ${at} and ${activations.status} = 'activated'
    ), w as (
      select count(*)::int as pending, min(${webhookDeliveries.createdAt})::text as oldest from ${webhookDeliveries} where ${webhookDeliveries.status} = 'pending'
    )
    select to_json(s) as servers, to_json(c) as codes, a.awaiting, w.pending, w.oldest from s, c, a, w`;
}

interface FleetRow {
  servers: Record<ServerHealth, number> | string;
  codes: StateCounts['installCodes'] | string;
  awaiting: number;
  pending: number;
  oldest: string | null;
}

/** The fleet's counts now, from one statement (the gauges of /metrics; the console shows the same). */
export async function stateCounts(db: Database, now: Date, thresholds: HealthThresholds): Promise<StateCounts> {
  const { rows } = (await db.execute(fleetStatement(now, thresholds))) as unknown as { rows: FleetRow[] };
  const r = rows[0]!;
  const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);
  const oldest = r.oldest ? timestampOf(r.oldest) : undefined;
  return {
    servers: json(r.servers),
    installCodes: json(r.codes),
    activationsAwaitingConfirm: r.awaiting,
    webhookDeliveriesPending: r.pending,
    oldestPendingWebhookAgeSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
  };
}
