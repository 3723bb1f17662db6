import type { components } from '../../clients/typescript/src/schema.js';
import type { Row } from './output.js';

type EventRecord = components['schemas']['EventRecord'];

/** An event as a table row: what changed, when, by whom (an operator by name, with the reason), about what. */
export const eventRow = (e: EventRecord): Row => ({
  id: e.event_id,
  type: e.type,
  occurred_at: e.occurred_at,
  actor: typeof e.data.operator === 'string' ? `${e.actor} ${e.data.operator}` : e.actor,
  reason: typeof e.data.reason === 'string' ? e.data.reason : null,
  install_code: e.install_code_id,
  activation: e.activation_id,
  server: e.server_id,
});
export const eventColumns = ['id', 'type', 'occurred_at', 'actor', 'reason', 'install_code', 'activation', 'server'];
