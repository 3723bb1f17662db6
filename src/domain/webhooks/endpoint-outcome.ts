import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { webhookEndpoints } from '../../db/schema.js';
import { recordEvent } from '../events/event-trail.js';
import type { AttemptOutcome } from './sender.js';

/** An endpoint failing for this long (every attempt failed since) is disabled. */
const DISABLE_AFTER_SECONDS = 5 * 24 * 3600;

/**
 * What an attempt tells of its endpoint, in the attempt's transaction: a success clears the failing streak;
 * a failure starts or extends it, and five days of it disable the endpoint (event `webhook_endpoint.disabled`,
 * actor `service`); a 429 delays every attempt to the endpoint by its `Retry-After` (DESIGN §28).
 */
export async function noteEndpointOutcome(
  tx: Database,
  { endpointId, outcome, attemptedAt }: { endpointId: string; outcome: AttemptOutcome; attemptedAt: Date },
): Promise<void> {
  if (outcome.delivered) {
    await tx
      .update(webhookEndpoints)
      .set({ lastSuccessAt: attemptedAt, failingSince: null })
      .where(eq(webhookEndpoints.id, endpointId));
    return;
  }
  const delayedUntil =
    outcome.retryAfterSeconds === undefined
      ? undefined
      : new Date(attemptedAt.getTime() + outcome.retryAfterSeconds * 1000).toISOString();
  const [endpoint] = await tx
    .update(webhookEndpoints)
    .set({
      lastFailureAt: attemptedAt,
      failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${attemptedAt.toISOString()}::timestamptz)`,
      ...(delayedUntil
        ? { sendAfter: sql`greatest(${webhookEndpoints.sendAfter}, ${delayedUntil}::timestamptz)` }
        : {}),
    })
    .where(eq(webhookEndpoints.id, endpointId))
    .returning();
  if (
    endpoint &&
    endpoint.status === 'enabled' &&
    endpoint.failingSince &&
    attemptedAt.getTime() - endpoint.failingSince.getTime() >= DISABLE_AFTER_SECONDS * 1000
  ) {
    await tx
      .update(webhookEndpoints)
      .set({ status: 'disabled', disabledAt: attemptedAt })
      .where(eq(webhookEndpoints.id, endpoint.id));
    await recordEvent(tx, { actor: 'service' }, attemptedAt, {
      type: 'webhook_endpoint.disabled',
      data: {
        webhook_endpoint_id: endpoint.id,
        url_host: endpoint.urlHost,
        failing_since: endpoint.failingSince.toISOString(),
      },
    });
  }
}
