import { and, gte, lt, sql } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { activations } from '../../db/schema.js';
import type { ActivationRow } from '../activations/activation-rows.js';
import { bucketStart, DAY_SECONDS, HOUR_SECONDS } from '../rate-limits/policies.js';

/** One UTC hour: the activations made in it, by their status now. */
export interface ActivationHour {
  start: Date;
  counts: Record<ActivationRow['status'], number>;
}

/**
 * Activations per UTC hour over `days` whole UTC days, the last one today (its hours to come are zeros),
 * oldest first, every hour present: one grouped read over the creation-time index.
 */
export async function activationsPerHour(db: Database, now: Date, days: number): Promise<ActivationHour[]> {
  const hours = days * 24;
  const first = new Date(bucketStart(now, DAY_SECONDS).getTime() - (days - 1) * DAY_SECONDS * 1000);
  const hour = sql<string>`date_trunc('hour', ${activations.createdAt} at time zone 'UTC')::text`;
  const rows = await db
    .select({ hour, status: activations.status, count: sql<number>`count(*)::int` })
    .from(activations)
    .where(
      and(
        gte(activations.createdAt, first),
        lt(activations.createdAt, new Date(first.getTime() + hours * HOUR_SECONDS * 1000)),
      ),
    )
    .groupBy(hour, activations.status);
  const series = Array.from({ length: hours }, (_, i) => ({
    start: new Date(first.getTime() + i * HOUR_SECONDS * 1000),
    counts: { activated: 0, confirmed: 0, released: 0 },
  }));
  for (const row of rows) {
    const index = Math.round(
      (new Date(`${row.hour.replace(' ', 'T')}Z`).getTime() - first.getTime()) / (HOUR_SECONDS * 1000),
    );
    const slot = series[index];
    if (slot) slot.counts[row.status] += Number(row.count);
  }
  return series;
}
