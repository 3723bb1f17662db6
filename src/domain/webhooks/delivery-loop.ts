import { eq, inArray } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { webhookEndpoints } from '../../db/schema.js';
import { errorFields, type Logger } from '../../logger.js';
import { startPeriodicPass } from '../upkeep/periodic-pass.js';
import { randomId } from '../tokens/secret-hash.js';
import { claimDueDeliveries, pruneDeliveries, recordAttempt, type ClaimedDelivery } from './deliveries.js';
import { dispatchEvents } from './dispatch.js';
import { claimChatMessage, recordChatAttempt, type ChatMessageClaim } from './chat-deliveries.js';
import { chatMessageBody } from './formats/chat-message.js';
import type { WebhookEndpointRow } from './endpoints.js';
import { endpointUrl, signingSecrets } from './sealed-fields.js';
import { sendWebhook, WEBHOOK_TIMEOUT_MS, type AttemptOutcome } from './sender.js';
import { webhookSignature } from './signing.js';
import type { WebhookSafety } from './url-safety.js';
import { inRootSpan } from '../../tracing/active-tracing.js';
import type { SpanAttributes } from '../../tracing/tracing.js';

/** A pass every second: the first attempt comes within a few seconds of the commit (§15: within 5 s). */
const DELIVERY_PASS_MS = 1000;
/** Longer than an attempt can take (10 s), so a lease only expires when its instance is gone. */
const LEASE_MS = 30_000;
/** Messages attempted at once by one instance. */
const CLAIM_BATCH = 10;
/** Retention runs every this many passes (10 minutes). */
const PRUNE_EVERY_PASSES = 600;

export interface WebhookWorkerDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  safety: WebhookSafety;
  keyEncryptionKey: Buffer | undefined;
  /** CONSOLE_PUBLIC_URL: where chat messages link (DESIGN §26, §28). */
  consolePublicUrl: URL;
  /** Counts attempts by outcome and pruned undelivered messages. */
  onAttempt?(outcome: 'delivered' | 'retrying' | 'failed'): void;
  onExpired?(count: number): void;
  timeoutMs?: number;
  leaseMs?: number;
  resolve?: (host: string) => Promise<string[]>;
  random?: () => number;
}

export interface WebhookWorker {
  /** One pass: dispatch new events, then attempt what is due (each attempt its own lease). */
  runOnce(): Promise<void>;
  prune(): Promise<void>;
}

/** What an attempt's span says of its result: the status code, and why it failed (`error.type`: the status, or the network error's kind). */
function attemptAttributes(outcome: AttemptOutcome): SpanAttributes {
  const said: SpanAttributes = {};
  if (outcome.statusCode !== null) said['http.response.status_code'] = outcome.statusCode;
  if (!outcome.delivered)
    said['error.type'] =
      outcome.statusCode !== null ? String(outcome.statusCode) : (outcome.error ?? 'failed').split(':')[0]!;
  return said;
}

/** The delivery side of webhooks, outside the request path: the request path only writes events. */
export function createWebhookWorker(deps: WebhookWorkerDeps): WebhookWorker {
  const leaseMs = deps.leaseMs ?? LEASE_MS;

  async function attempt(
    delivery: ClaimedDelivery,
    endpoint: WebhookEndpointRow | undefined,
    leaseId: string,
  ): Promise<void> {
    if (!endpoint) return; // removed since the claim: its deliveries went with it
    const now = deps.clock.now();
    const timestamp = Math.floor(now.getTime() / 1000);
    let outcome: AttemptOutcome;
    try {
      const signature = webhookSignature(
        signingSecrets(endpoint, deps.keyEncryptionKey, now),
        delivery.message_id,
        timestamp,
        delivery.payload,
      );
      const headers = {
        'webhook-id': delivery.message_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature,
      };
      // A span of its own when tracing is on: the host, never the URL (URLs often carry secrets).
      const url = endpointUrl(endpoint, deps.keyEncryptionKey);
      const target = new URL(url);
      const attributes = {
        'http.request.method': 'POST',
        'server.address': target.hostname,
        'server.port': Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
        'slowdns.webhook.endpoint_id': endpoint.id,
        'slowdns.webhook.delivery_id': delivery.id,
        'slowdns.webhook.message_id': delivery.message_id,
        'slowdns.webhook.attempt': delivery.attempts + 1,
      };
      outcome = await inRootSpan(
        'webhook delivery',
        attributes,
        () =>
          sendWebhook(url, headers, delivery.payload, {
            safety: deps.safety,
            timeoutMs: deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
            resolve: deps.resolve,
          }),
        attemptAttributes,
      );
    } catch (err) {
      deps.logger.warn('webhook attempt failed to start', { delivery_id: delivery.id, ...errorFields(err) });
      outcome = { delivered: false, statusCode: null, error: 'internal', responseExcerpt: null, durationMs: 0 };
    }
    const label = await recordAttempt(deps.db, { delivery, leaseId, outcome, attemptedAt: now, random: deps.random });
    deps.onAttempt?.(label);
    if (label !== 'delivered')
      deps.logger.info('webhook attempt failed', {
        delivery_id: delivery.id,
        webhook_id: endpoint.id,
        status_code: outcome.statusCode,
        error: outcome.error,
        outcome: label,
      });
  }

  /** One chat message: the events its endpoint has waiting, in its format, unsigned; one attempt for all of them. */
  async function sendChatMessage(claim: ChatMessageClaim, leaseId: string): Promise<void> {
    const now = deps.clock.now();
    let outcome: AttemptOutcome;
    try {
      const [endpoint] = await deps.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, claim.endpointId));
      if (!endpoint) return; // removed since the claim
      const body = chatMessageBody(
        claim.format,
        claim.deliveries.map((d) => d.payload),
        deps.consolePublicUrl,
      );
      outcome = await sendWebhook(endpointUrl(endpoint, deps.keyEncryptionKey), {}, body, {
        safety: deps.safety,
        timeoutMs: deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
        resolve: deps.resolve,
      });
    } catch (err) {
      deps.logger.warn('chat message failed to start', { webhook_id: claim.endpointId, ...errorFields(err) });
      outcome = { delivered: false, statusCode: null, error: 'internal', responseExcerpt: null, durationMs: 0 };
    }
    const labels = await recordChatAttempt(deps.db, { claim, leaseId, outcome, attemptedAt: now });
    for (const label of labels) deps.onAttempt?.(label);
    if (!outcome.delivered)
      deps.logger.info('chat message failed', {
        webhook_id: claim.endpointId,
        events: claim.deliveries.length,
        status_code: outcome.statusCode,
        error: outcome.error,
      });
  }

  return {
    async runOnce() {
      await dispatchEvents(deps.db, deps.clock.now());
      const chatLease = randomId('lease_', 8);
      const messages: ChatMessageClaim[] = [];
      for (let i = 0; i < CLAIM_BATCH; i++) {
        const claim = await claimChatMessage(deps.db, { now: deps.clock.now(), leaseMs, leaseId: chatLease });
        if (!claim) break;
        messages.push(claim);
      }
      await Promise.all(messages.map((claim) => sendChatMessage(claim, chatLease)));
      const leaseId = randomId('lease_', 8);
      const claimed = await claimDueDeliveries(deps.db, {
        now: deps.clock.now(),
        leaseMs,
        limit: CLAIM_BATCH,
        leaseId,
      });
      if (claimed.length === 0) return;
      const ids = [...new Set(claimed.map((d) => d.endpoint_id))];
      const endpoints = await deps.db
        .select()
        .from(webhookEndpoints)
        .where(ids.length === 1 ? eq(webhookEndpoints.id, ids[0]!) : inArray(webhookEndpoints.id, ids));
      const byId = new Map(endpoints.map((e) => [e.id, e]));
      await Promise.all(claimed.map((d) => attempt(d, byId.get(d.endpoint_id), leaseId)));
    },
    async prune() {
      const { undelivered } = await pruneDeliveries(deps.db, deps.clock.now());
      if (undelivered > 0) {
        deps.onExpired?.(undelivered);
        deps.logger.warn('undelivered webhook messages pruned after 14 days', { count: undelivered });
      }
    },
  };
}

export interface WebhookDelivery {
  /** Stops the timer and waits for the pass under way (its attempts end within the 10 s timeout). */
  stop(): Promise<void>;
}

/** Runs the worker every `everyMs` on an unref'd timer, one pass at a time; started by main.ts beside the server. */
export function startWebhookDelivery(
  worker: WebhookWorker,
  logger: Logger,
  { everyMs = DELIVERY_PASS_MS } = {},
): WebhookDelivery {
  let passes = 0;
  const pass = async () => {
    try {
      await worker.runOnce();
      if (++passes % PRUNE_EVERY_PASSES === 0) await worker.prune();
    } catch (err) {
      logger.warn('webhook delivery pass failed', { ...errorFields(err) });
    }
  };
  return startPeriodicPass(pass, everyMs);
}
