import { and, desc, eq, inArray, isNull, lte } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement } from '../../db/statement.js';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { recordEvent, type ChangeContext } from '../events/event-trail.js';
import { randomId } from '../tokens/secret-hash.js';
import { noteEndpointOutcome } from './endpoint-outcome.js';
import { nextAttemptAt } from './retry-schedule.js';
import type { AttemptOutcome } from './sender.js';

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

/** Undelivered messages are kept this long for replay, then pruned (and counted). */
const DELIVERY_RETENTION_SECONDS = 14 * 24 * 3600;

export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  message_id: string;
  payload: string;
  attempts: number;
}

/**
 * Takes due deliveries of enabled endpoints for one attempt each: a lease (`leased_until`, `lease_id`)
 * set in one short statement, rows locked by another instance skipped. No transaction stays open
 * over the HTTP call: a lease that outlives a killed instance simply expires and the message is tried again.
 */
type ClaimParams = { now: string; leased_until: string; limit: string; lease_id: string };

const CLAIM = namedStatement<ClaimParams>(`
with due as (
  select d.id from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
  where d.status = 'pending' and d.next_attempt_at <= :now::timestamptz
    and (d.leased_until is null or d.leased_until <= :now::timestamptz) and w.status = 'enabled'
    and w.format = 'standard' and (w.send_after is null or w.send_after <= :now::timestamptz)
  order by d.next_attempt_at, d.id
  limit :limit::int
  for update of d skip locked
)
update webhook_deliveries d set leased_until = :leased_until::timestamptz, lease_id = :lease_id from due where d.id = due.id
returning d.id, d.endpoint_id, d.message_id, d.payload, d.attempts`);

export async function claimDueDeliveries(
  db: Database,
  { now, leaseMs, limit, leaseId }: { now: Date; leaseMs: number; limit: number; leaseId: string },
): Promise<ClaimedDelivery[]> {
  return runStatement<ClaimedDelivery, ClaimParams>(db, CLAIM, {
    now: now.toISOString(),
    leased_until: new Date(now.getTime() + leaseMs).toISOString(),
    limit: String(limit),
    lease_id: leaseId,
  });
}

/**
 * Records an attempt and its consequence in one transaction: delivered; tried again later on the
 * schedule; or `failed` when the schedule is done. The endpoint's health follows (noteEndpointOutcome).
 * Answers the outcome label.
 */
export async function recordAttempt(
  db: Database,
  {
    delivery,
    leaseId,
    outcome,
    attemptedAt,
    random,
  }: { delivery: ClaimedDelivery; leaseId: string; outcome: AttemptOutcome; attemptedAt: Date; random?: () => number },
): Promise<'delivered' | 'retrying' | 'failed'> {
  return db.transaction(async (tx) => {
    const attempts = delivery.attempts + 1;
    const retryAt = outcome.delivered ? undefined : nextAttemptAt(attempts, attemptedAt, random);
    const label = outcome.delivered ? 'delivered' : retryAt ? 'retrying' : 'failed';
    // Removed with its endpoint while the attempt was under way: nothing left to record it on.
    const [current] = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, delivery.id))
      .for('update');
    if (!current) return label;
    await tx.insert(webhookAttempts).values({
      deliveryId: delivery.id,
      attemptedAt,
      durationMs: outcome.durationMs,
      statusCode: outcome.statusCode,
      error: outcome.error,
      responseExcerpt: outcome.responseExcerpt,
    });
    // Only while the lease is still this attempt's: one that expired was taken over, and the new holder decides.
    await tx
      .update(webhookDeliveries)
      .set({
        attempts,
        lastAttemptAt: attemptedAt,
        leasedUntil: null,
        leaseId: null,
        ...(label === 'delivered' ? { status: 'delivered' as const, deliveredAt: attemptedAt } : {}),
        ...(label === 'retrying' ? { nextAttemptAt: retryAt! } : {}),
        ...(label === 'failed' ? { status: 'failed' as const } : {}),
      })
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.leaseId, leaseId)));
    await noteEndpointOutcome(tx, { endpointId: delivery.endpoint_id, outcome, attemptedAt });
    return label;
  });
}

/** A `webhook.test` message for one endpoint, attempted like any other (within a second or two). */
export async function queueTestMessage(db: Database, endpointId: string, now: Date): Promise<WebhookDeliveryRow> {
  const [endpoint] = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.id, endpointId));
  if (!endpoint) throw new ApiError('webhook_endpoint_not_found');
  const payload = JSON.stringify({
    type: 'webhook.test',
    timestamp: now.toISOString(),
    data: { webhook_endpoint_id: endpointId },
  });
  const [delivery] = await db
    .insert(webhookDeliveries)
    .values({
      id: randomId('whd_', 8),
      endpointId,
      eventId: null,
      messageId: randomId('msg_', 8),
      eventType: 'webhook.test',
      payload,
      status: 'pending',
      nextAttemptAt: now,
      createdAt: now,
    })
    .returning();
  return delivery!;
}

/** Every attempt of one delivery, oldest first. */
export async function attemptsOf(db: Database, deliveryId: string): Promise<WebhookAttemptRow[]> {
  return db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, deliveryId))
    .orderBy(webhookAttempts.attemptedAt, webhookAttempts.id);
}

/** The newest deliveries of an endpoint with every attempt of each (oldest attempt first). */
export async function listDeliveries(
  db: Database,
  endpointId: string,
  limit = 100,
): Promise<{ delivery: WebhookDeliveryRow; attempts: WebhookAttemptRow[] }[]> {
  const [endpoint] = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.id, endpointId));
  if (!endpoint) throw new ApiError('webhook_endpoint_not_found');
  const deliveries = await db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
  if (deliveries.length === 0) return [];
  const attempts = await db
    .select()
    .from(webhookAttempts)
    .where(
      inArray(
        webhookAttempts.deliveryId,
        deliveries.map((d) => d.id),
      ),
    )
    .orderBy(webhookAttempts.attemptedAt, webhookAttempts.id);
  return deliveries.map((delivery) => ({ delivery, attempts: attempts.filter((a) => a.deliveryId === delivery.id) }));
}

/**
 * Sends a delivery again, delivered or not, with the same `webhook-id` and body: due now, the retry
 * schedule started afresh. A lease in progress is left alone (the attempt under way decides first).
 */
/** Queues a delivery again, recording `webhook_delivery.replayed` with the operator and their reason in the same transaction. */
export async function replayDelivery(
  db: Database,
  deliveryId: string,
  now: Date,
  context: ChangeContext,
): Promise<WebhookDeliveryRow> {
  return db.transaction(async (tx) => {
    const [delivery] = await tx
      .update(webhookDeliveries)
      .set({ status: 'pending', attempts: 0, nextAttemptAt: now, deliveredAt: null })
      .where(eq(webhookDeliveries.id, deliveryId))
      .returning();
    if (!delivery) throw new ApiError('webhook_delivery_not_found');
    await recordEvent(tx, context, now, {
      type: 'webhook_delivery.replayed',
      data: {
        webhook_delivery_id: delivery.id,
        webhook_endpoint_id: delivery.endpointId,
        message_id: delivery.messageId,
        event_type: delivery.eventType,
      },
    });
    return delivery;
  });
}

/**
 * Deletes deliveries older than the retention: the undelivered ones (pending on a paused or
 * disabled endpoint, or failed) are counted, so that nothing vanishes unseen. Delivered ones go quietly.
 */
export async function pruneDeliveries(db: Database, now: Date): Promise<{ undelivered: number; delivered: number }> {
  const cutoff = new Date(now.getTime() - DELIVERY_RETENTION_SECONDS * 1000);
  const removed = await db
    .delete(webhookDeliveries)
    .where(and(lte(webhookDeliveries.createdAt, cutoff), isNull(webhookDeliveries.leaseId)))
    .returning({ status: webhookDeliveries.status });
  const delivered = removed.filter((r) => r.status === 'delivered').length;
  return { undelivered: removed.length - delivered, delivered };
}
