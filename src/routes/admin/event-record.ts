import { toIsoOffset } from '../../clock.js';
import type { EventRow, EventType } from '../../domain/events/event-trail.js';

/** An event as the admin API answers it (`EventRecord`): in the event list and with each object. */
export function toEventRecord(e: EventRow) {
  return {
    event_id: e.id,
    type: e.type as EventType,
    occurred_at: toIsoOffset(e.occurredAt),
    actor: e.actor,
    install_code_id: e.installCodeId,
    activation_id: e.activationId,
    server_id: e.serverId,
    request_id: e.requestId,
    client_key_hash: e.clientKeyHash,
    data: e.data as Record<string, string | number | boolean | null>,
    delivered_at: e.deliveredAt ? toIsoOffset(e.deliveredAt) : null,
  };
}
