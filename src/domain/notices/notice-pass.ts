import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { errorFields, type Logger } from '../../logger.js';
import type { HealthThresholds } from '../admin-lists/server-list.js';
import type { EventType } from '../events/event-trail.js';
import { startPeriodicPass, type PeriodicPass } from '../upkeep/periodic-pass.js';
import { warnExpiringCodes, warnExpiringTokens } from './expiry-warnings.js';
import { notePass } from './notice-watch.js';
import { moveServerHealth } from './server-health-notices.js';

/** Every 30 s: a server's `went_stale` comes within half a minute of its tenth minute of silence. */
const NOTICE_PASS_MS = 30_000;
/** A gap this long between two passes is the service's own downtime (a pass missed four times over). */
const DOWNTIME_AFTER_MS = 2 * 60_000;
/** Rows moved per statement: each batch is one short transaction, however many servers went quiet at once. */
const NOTICE_BATCH = 1000;

export interface NoticePassOptions {
  thresholds: HealthThresholds;
  downtimeAfterMs?: number;
  batch?: number;
}

export interface NoticePassResult {
  /** The events written, by type. */
  written: Partial<Record<EventType, number>>;
  /** Statements run (a batch each). */
  batches: number;
}

/** Runs `step` in batches until one moves fewer rows than a batch. */
async function inBatches(step: () => Promise<EventType[]>, batch: number, result: NoticePassResult): Promise<void> {
  for (;;) {
    const types = await step();
    result.batches += 1;
    for (const type of types) result.written[type] = (result.written[type] ?? 0) + 1;
    if (types.length < batch) return;
  }
}

/**
 * One pass of the notices (DESIGN §28): notes itself (the service's downtime is the gap between passes),
 * then moves every server whose health changed and warns of codes and tokens about to expire, in batches.
 * Any instance may run it at any time, several at once: every event is written once.
 */
export async function runNoticePass(db: Database, now: Date, options: NoticePassOptions): Promise<NoticePassResult> {
  const batch = options.batch ?? NOTICE_BATCH;
  const downtime = await notePass(db, now, options.downtimeAfterMs ?? DOWNTIME_AFTER_MS);
  const result: NoticePassResult = { written: {}, batches: 0 };
  await inBatches(() => moveServerHealth(db, { now, thresholds: options.thresholds, downtime, batch }), batch, result);
  await inBatches(() => warnExpiringCodes(db, now, batch), batch, result);
  await inBatches(() => warnExpiringTokens(db, now, batch), batch, result);
  return result;
}

/** The pass on every instance, every 30 s (started by main.ts, stopped on drain); `onWritten` counts its events. */
export function startNoticePass(
  deps: { db: Database; clock: Clock; logger: Logger; onWritten(type: EventType, count: number): void },
  options: NoticePassOptions,
  { everyMs = NOTICE_PASS_MS } = {},
): PeriodicPass {
  return startPeriodicPass(async () => {
    try {
      const { written } = await runNoticePass(deps.db, deps.clock.now(), options);
      for (const [type, count] of Object.entries(written)) deps.onWritten(type as EventType, count);
    } catch (err) {
      deps.logger.warn('notice pass failed', { ...errorFields(err) });
    }
  }, everyMs);
}
