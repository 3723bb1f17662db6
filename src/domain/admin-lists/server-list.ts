import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { activations, servers } from '../../db/schema.js';
import { CHECKIN_INTERVAL_SECONDS, type ServerRow } from '../servers/registration.js';
import { matching, newestFirst, ofMachine, tagged, textOrIdMatching, type SearchFilter } from './list-query.js';
import { pageOf, type Page } from './pagination.js';
import type { TimeRange } from './time-range.js';

/** Derived from check-ins, never stored: `stale` after two missed intervals, `dead` after `SERVER_DEAD_AFTER_SECONDS`. */
export type ServerHealth = 'active' | 'stale' | 'dead' | 'revoked';

/** Missed check-ins before a server counts as `stale`. */
const STALE_AFTER_MISSED_CHECKINS = 2;

export interface HealthThresholds {
  deadAfterSeconds: number;
}

/**
 * The times (ms) before which a server is stale, and dead: numbers, as an export tells a health per row. The
 * notices of DESIGN §28 (src/domain/notices/) move on these same cutoffs, so events and gauges agree.
 */
export function healthCutoffs(now: Date, { deadAfterSeconds }: HealthThresholds) {
  const staleAfterSeconds = Math.min(STALE_AFTER_MISSED_CHECKINS * CHECKIN_INTERVAL_SECONDS, deadAfterSeconds);
  return { staleBefore: now.getTime() - staleAfterSeconds * 1000, deadBefore: now.getTime() - deadAfterSeconds * 1000 };
}

/** Its last check-in, or its registration when it has never checked in. */
const lastSignOfLife = (server: HealthSource) => server.lastSeenAt ?? server.registeredAt;
const lastSignOfLifeColumn = sql<Date>`coalesce(${servers.lastSeenAt}, ${servers.registeredAt})`;

/** What a server's health is told from. */
type HealthSource = Pick<ServerRow, 'status' | 'lastSeenAt' | 'registeredAt'>;

export function serverHealth(server: HealthSource, now: Date, thresholds: HealthThresholds): ServerHealth {
  if (server.status === 'revoked') return 'revoked';
  const { staleBefore, deadBefore } = healthCutoffs(now, thresholds);
  const seen = lastSignOfLife(server).getTime();
  if (seen < deadBefore) return 'dead';
  if (seen < staleBefore) return 'stale';
  return 'active';
}

export function healthCondition(health: ServerHealth, now: Date, thresholds: HealthThresholds): SQL | undefined {
  if (health === 'revoked') return eq(servers.status, 'revoked');
  const { staleBefore, deadBefore } = healthCutoffs(now, thresholds);
  const active = eq(servers.status, 'active');
  const before = (ms: number) => sql`${lastSignOfLifeColumn} < ${new Date(ms).toISOString()}::timestamptz`;
  if (health === 'dead') return and(active, before(deadBefore));
  if (health === 'stale') return and(active, before(staleBefore), sql`not ${before(deadBefore)}`);
  return and(active, sql`not ${before(staleBefore)}`);
}

/** `search.q` looks in the hostname, and at the start of the server's id. */
export interface ServerListFilter extends TimeRange, SearchFilter {
  /** One server by its id (`GET …/servers/{server_id}`). */
  id?: string | undefined;
  health?: ServerHealth | undefined;
  hostname?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface ServerListItem {
  server: ServerRow;
  health: ServerHealth;
}

/** Servers, newest registered first, each with its health as of `now`. */
export async function listServers(
  db: Database,
  filter: ServerListFilter,
  now: Date,
  thresholds: HealthThresholds,
): Promise<Page<ServerListItem>> {
  const page = newestFirst(servers.registeredAt, servers.id, filter, [
    filter.health ? healthCondition(filter.health, now, thresholds) : undefined,
    ...matching([
      [servers.id, filter.id],
      [servers.hostname, filter.hostname],
    ]),
    textOrIdMatching(servers.hostname, { column: servers.id, prefix: 'srv_' }, filter.q),
    ofMachine(db, servers.activationId, activations.id, filter),
    tagged(servers.tags, filter.tag),
  ]);
  const rows = await db
    .select()
    .from(servers)
    .where(page.where)
    .orderBy(...page.orderBy)
    .limit(filter.limit + 1);
  return pageOf(
    rows,
    filter.limit,
    (server) => ({ server, health: serverHealth(server, now, thresholds) }),
    (server) => ({ t: server.registeredAt.getTime(), id: server.id }),
  );
}
