import { and, desc, eq, gte, isNull, sql } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { events, webhookEndpoints, type WebhookEventFilter } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { operatorEventData, recordEvent, type ChangeContext, type EventType } from '../events/event-trail.js';
import { randomId } from '../tokens/secret-hash.js';
import { DISPATCH_WINDOW_MS } from './dispatch.js';
import { generateWebhookSecret } from './signing.js';
import { openField, storedField, type SecretSealing } from './sealed-fields.js';

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

/** What an endpoint's messages look like (DESIGN §28): Standard Webhooks, or a chat platform's incoming-webhook JSON. */
export const WEBHOOK_FORMATS = ['standard', 'slack', 'discord', 'teams', 'google_chat'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** After a rotation the previous secret still signs for a day, so receivers can switch without losing a message. */
const SECRET_ROTATION_OVERLAP_SECONDS = 24 * 3600;

/** At most this many endpoints: each one is a fan-out of every event. */
const MAX_WEBHOOK_ENDPOINTS = 50;

function endpointEvent(type: EventType, endpoint: WebhookEndpointRow, extra: Record<string, string | null> = {}) {
  // `operator`: the named operator of §17; today ADMIN_TOKEN is the only operator identity, `root`.
  return { type, data: { webhook_endpoint_id: endpoint.id, url_host: endpoint.urlHost, ...extra } };
}

const operatorFields = (context: ChangeContext): Record<string, string | null> => operatorEventData(context);

export async function createWebhookEndpoint(
  db: Database,
  {
    input,
    sealing,
    now,
    context,
  }: {
    input: { url: URL; events: WebhookEventFilter[]; description: string | undefined; format: WebhookFormat };
    sealing: SecretSealing;
    now: Date;
    context: ChangeContext;
  },
): Promise<{ endpoint: WebhookEndpointRow; secret: string | null }> {
  return db.transaction(async (tx) => {
    const [{ count }] = (await tx.select({ count: sql<number>`count(*)::int` }).from(webhookEndpoints)) as [
      { count: number },
    ];
    if (count >= MAX_WEBHOOK_ENDPOINTS) throw new ApiError('webhook_endpoint_limit_reached');
    // With no endpoint, the dispatch leaves events as they are (nothing written per event, dispatch.ts):
    // those committed until now were made before this endpoint and are for nobody. Events still in flight
    // commit after it and are dispatched to it.
    if (count === 0)
      await tx
        .update(events)
        .set({ deliveredAt: now })
        .where(and(isNull(events.deliveredAt), gte(events.occurredAt, new Date(now.getTime() - DISPATCH_WINDOW_MS))));
    const id = randomId('wh_', 8);
    // A chat platform checks no signature: its endpoints have no secret (DESIGN §28).
    const secret = input.format === 'standard' ? generateWebhookSecret() : null;
    const stored = secret === null ? { clear: null, sealed: null } : storedField(sealing, 'secret', id, secret);
    const url = storedField(sealing, 'url', id, input.url.href);
    const [endpoint] = await tx
      .insert(webhookEndpoints)
      .values({
        id,
        url: url.clear,
        urlSealed: url.sealed,
        urlHost: input.url.host,
        format: input.format,
        description: input.description ?? null,
        eventTypes: input.events,
        secret: stored.clear,
        secretSealed: stored.sealed,
        status: 'enabled',
        createdAt: now,
      })
      .returning();
    const event = endpointEvent('webhook_endpoint.created', endpoint!);
    await recordEvent(tx, context, now, { ...event, data: { ...event.data, ...operatorFields(context) } });
    return { endpoint: endpoint!, secret };
  });
}

/** An enabled endpoint is `healthy`, or `failing` while its attempts fail; else its status (`paused`, `disabled`). */
export function webhookEndpointHealth(e: WebhookEndpointRow): 'healthy' | 'failing' | 'paused' | 'disabled' {
  return e.status === 'enabled' ? (e.failingSince ? 'failing' : 'healthy') : e.status;
}

export interface WebhookEndpointView {
  endpoint: WebhookEndpointRow;
  pendingDeliveries: number;
}

// Written out: drizzle leaves a column in a select list unqualified, which the subquery would read as its own.
const pendingCount = sql<number>`(select count(*)::int from webhook_deliveries d where d.endpoint_id = webhook_endpoints.id and d.status = 'pending')`;

export async function listWebhookEndpoints(db: Database): Promise<WebhookEndpointView[]> {
  const rows = await db
    .select({ endpoint: webhookEndpoints, pendingDeliveries: pendingCount })
    .from(webhookEndpoints)
    .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
  return rows;
}

export async function getWebhookEndpoint(db: Database, id: string): Promise<WebhookEndpointView> {
  const [row] = await db
    .select({ endpoint: webhookEndpoints, pendingDeliveries: pendingCount })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.id, id));
  if (!row) throw new ApiError('webhook_endpoint_not_found');
  return row;
}

async function lockedEndpoint(tx: Database, id: string): Promise<WebhookEndpointRow> {
  const [endpoint] = await tx.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).for('update');
  if (!endpoint) throw new ApiError('webhook_endpoint_not_found');
  return endpoint;
}

/**
 * Pauses (deliveries are still made, and wait) or resumes an endpoint; resuming a disabled endpoint
 * enables it again, its failing streak forgotten. Idempotent: no event when nothing changes.
 */
export async function setWebhookEndpointPaused(
  db: Database,
  { id, paused, now, context }: { id: string; paused: boolean; now: Date; context: ChangeContext },
): Promise<WebhookEndpointRow> {
  return db.transaction(async (tx) => {
    const endpoint = await lockedEndpoint(tx, id);
    const status = paused ? 'paused' : 'enabled';
    if (endpoint.status === status) return endpoint;
    const [updated] = await tx
      .update(webhookEndpoints)
      .set({ status, ...(paused ? {} : { failingSince: null, disabledAt: null }) })
      .where(eq(webhookEndpoints.id, id))
      .returning();
    const event = endpointEvent(paused ? 'webhook_endpoint.paused' : 'webhook_endpoint.resumed', updated!);
    await recordEvent(tx, context, now, { ...event, data: { ...event.data, ...operatorFields(context) } });
    return updated!;
  });
}

/** A new secret; the previous one keeps signing for SECRET_ROTATION_OVERLAP_SECONDS. */
export async function rotateWebhookSecret(
  db: Database,
  { id, sealing, now, context }: { id: string; sealing: SecretSealing; now: Date; context: ChangeContext },
): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  return db.transaction(async (tx) => {
    const endpoint = await lockedEndpoint(tx, id);
    if (endpoint.format !== 'standard') throw new ApiError('webhook_endpoint_unsigned');
    const secret = generateWebhookSecret();
    const stored = storedField(sealing, 'secret', id, secret);
    const previous = storedField(
      sealing,
      'secret',
      id,
      openField(sealing.kek, 'secret', id, endpoint.secret, endpoint.secretSealed),
    );
    const [updated] = await tx
      .update(webhookEndpoints)
      .set({
        secret: stored.clear,
        secretSealed: stored.sealed,
        previousSecret: previous.clear,
        previousSecretSealed: previous.sealed,
        previousSecretExpiresAt: new Date(now.getTime() + SECRET_ROTATION_OVERLAP_SECONDS * 1000),
      })
      .where(eq(webhookEndpoints.id, id))
      .returning();
    const event = endpointEvent('webhook_endpoint.secret_rotated', updated!);
    await recordEvent(tx, context, now, { ...event, data: { ...event.data, ...operatorFields(context) } });
    return { endpoint: updated!, secret };
  });
}

/** Removes an endpoint with its deliveries and their attempts. */
export async function removeWebhookEndpoint(
  db: Database,
  id: string,
  now: Date,
  context: ChangeContext,
): Promise<void> {
  await db.transaction(async (tx) => {
    const endpoint = await lockedEndpoint(tx, id);
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    const event = endpointEvent('webhook_endpoint.removed', endpoint);
    await recordEvent(tx, context, now, { ...event, data: { ...event.data, ...operatorFields(context) } });
  });
}
