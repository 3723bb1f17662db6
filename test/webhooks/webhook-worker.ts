import { createWebhookWorker, type WebhookWorkerDeps } from '../../src/domain/webhooks/delivery-loop.js';
import { recordEvent, type NewEvent } from '../../src/domain/events/event-trail.js';
import { createLogger } from '../../src/logger.js';
import type { TestApp } from '../support/test-app.js';

/** The delivery worker of a test app, as main.ts builds it, on the app's database and clock. */
export function testWorker(t: TestApp, overrides: Partial<WebhookWorkerDeps> = {}) {
  const outcomes: string[] = [];
  const worker = createWebhookWorker({
    db: t.database.db,
    clock: t.clock,
    logger: createLogger('silent'),
    safety: t.config.webhookSafety,
    keyEncryptionKey: t.config.keyEncryptionKey,
    consolePublicUrl: t.config.consolePublicUrl,
    onAttempt: (outcome) => outcomes.push(outcome),
    random: () => 0.5,
    ...overrides,
  });
  return { worker, outcomes };
}

/** An event as a change writes it (its own transaction). */
export function writeEvent(t: TestApp, event: Partial<NewEvent> = {}) {
  return recordEvent(t.database.db, { actor: 'operator' }, t.clock.now(), {
    type: 'server.revoked',
    serverId: 'srv_0123456789abcdef',
    data: { cause: 'revoked' },
    ...event,
  });
}
