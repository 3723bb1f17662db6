import { sqlPiece, type SqlPiece } from '../../db/composed-statement.js';
import type { Database } from '../../db/database.js';
import { events } from '../../db/schema.js';

export type EventRow = typeof events.$inferSelect;

/** Who made a change: the installer, a server's agent, an operator (an admin token; which one is `data.operator`), the browser session that issued the code, or the service itself (a webhook endpoint disabled after failing). */
export type EventActor = EventRow['actor'];

/** Every event type: `<object>.<verb>`, past tense. */
export const EVENT_TYPES = [
  'install_code.issued',
  'install_code.activated',
  'install_code.restored',
  'install_code.consumed',
  'install_code.revoked',
  'install_code.approved',
  'install_code.denied',
  'install_code.exhausted',
  'install_code.approval_requested',
  'install_code.expiry_warned',
  'install_code.machine_proof_refused',
  'install_code.identity_refused',
  'activation.created',
  'activation.confirmed',
  'activation.released',
  'activation.duplicate_detected',
  'server.registered',
  'server.agent_token_reissued',
  'server.revoked',
  'server.went_stale',
  'server.went_dead',
  'server.recovered',
  'rate_limit_override.created',
  'rate_limit_override.removed',
  'webhook_endpoint.created',
  'webhook_endpoint.paused',
  'webhook_endpoint.resumed',
  'webhook_endpoint.secret_rotated',
  'webhook_endpoint.removed',
  'webhook_endpoint.disabled',
  'webhook_delivery.replayed',
  'operator_token.created',
  'operator_token.revoked',
  'operator_token.expiry_warned',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Who asks for a change and from where, handed by the route to the domain function that makes it:
 * the request id and the hash of the client's rate-limit address key (`KeyedHashes.clientKey`).
 */
export interface ChangeContext {
  actor: EventActor;
  requestId?: string | undefined;
  clientKeyHash?: string | undefined;
  /** For an operator's change: who (the operator token's name; `root` for ADMIN_TOKEN), kept in each event's data. */
  operator?: string | undefined;
  /** For an operator the identity provider signed in (DESIGN §26): its issuer, kept as `operator_issuer`. */
  operatorIssuer?: string | undefined;
  /** For an operator's change: why, in their words (or null), kept in each event's data as `reason` when given. */
  reason?: string | null | undefined;
  /** Told the type of each event the change wrote, as it is written (the request counts them in the metrics). */
  recorded?: RecordedEvents | undefined;
}

/**
 * Where the events a change wrote are told: one list per request, counted as lifecycle transitions once
 * the request has answered (src/http/request-metrics.ts). The events are the one source of the counts.
 */
export interface RecordedEvents {
  add(types: readonly EventType[], actor: EventActor): void;
}

/** Tells the context's `recorded` the events a statement wrote (none: nothing). */
export function noteRecorded(context: ChangeContext, types: readonly EventType[] | null): void {
  if (types && types.length > 0) context.recorded?.add(types, context.actor);
}

/** For a statement whose CTE `recorded` inserts its events `returning type`: the types it wrote, as one JSON column. */
export const RECORDED_COLUMN = sqlPiece<never, { recorded: EventType[] | null }>(
  [],
  '(select json_agg(type) from recorded) as recorded',
);

/**
 * The facts an operator's change adds to the data of each of its events: `operator`, `operator_issuer` for
 * a person the identity provider signed in, and `reason` when the action takes one.
 */
export function operatorEventData(context: ChangeContext): Record<string, string | null> {
  if (context.operator === undefined) return {};
  const data: Record<string, string | null> = { operator: context.operator };
  if (context.operatorIssuer !== undefined) data.operator_issuer = context.operatorIssuer;
  if (context.reason !== undefined) data.reason = context.reason;
  return data;
}

export interface NewEvent {
  type: EventType;
  installCodeId?: string | undefined;
  activationId?: string | undefined;
  serverId?: string | undefined;
  /** Small, and never a secret: no code, token, cookie or key. */
  data?: Record<string, string | number | boolean | null | Record<string, string>>;
}

/**
 * Writes the events of one change (one per object whose state changed) in one statement. Call it
 * with the transaction that makes the change, so that the change and its events commit together or not at all.
 */
export async function recordEvent(
  tx: Database,
  context: ChangeContext,
  now: Date,
  ...changes: NewEvent[]
): Promise<void> {
  await tx.insert(events).values(
    changes.map((event) => ({
      type: event.type,
      occurredAt: now,
      actor: context.actor,
      installCodeId: event.installCodeId ?? null,
      activationId: event.activationId ?? null,
      serverId: event.serverId ?? null,
      requestId: context.requestId ?? null,
      clientKeyHash: context.clientKeyHash ?? null,
      data: { ...event.data, ...operatorEventData(context) },
    })),
  );
  noteRecorded(
    context,
    changes.map((event) => event.type),
  );
}

/**
 * For statements that write a change and its events at once (a CTE per change, then
 * `insert into events (type, …, ${EVENT_CONTEXT_COLUMNS}) select …, ${EVENT_CONTEXT_VALUES}`): the columns
 * every event of a change shares, their named parameters, and the values of those (`eventContextParams`).
 */
export const EVENT_CONTEXT_COLUMNS = sqlPiece([], 'occurred_at, actor, request_id, client_key_hash');

/** The parameters of `EVENT_CONTEXT_COLUMNS`, in their order; `:now` is also the statement's own instant. */
export const EVENT_CONTEXT_VALUES: SqlPiece<keyof EventContextParams> = sqlPiece(
  ['now', 'actor', 'request_id', 'client_key_hash'],
  ':now::timestamptz, :actor, :request_id, :client_key_hash',
);

/** The values of `EVENT_CONTEXT_VALUES`. */
export type EventContextParams = {
  now: string;
  actor: string;
  request_id: string | null;
  client_key_hash: string | null;
};

/** The values of `EVENT_CONTEXT_VALUES` for a change: when (ISO text, cast to timestamptz), who, request id, hashed client key. */
export function eventContextParams(context: ChangeContext, now: Date): EventContextParams {
  return {
    now: now.toISOString(),
    actor: context.actor,
    request_id: context.requestId ?? null,
    client_key_hash: context.clientKeyHash ?? null,
  };
}
