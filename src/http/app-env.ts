import type { Database } from '../db/database.js';
import type { RecordedEvents } from '../domain/events/event-trail.js';
import type { KeyedHashes } from '../domain/tokens/keyed-hashes.js';
import type { ConsoleSession } from '../domain/operators/console-sessions.js';
import type { Metrics } from '../metrics/metrics.js';

/**
 * What a request carries through the app's middleware and handlers (Hono's `c.get`): types only, so that a
 * module that needs the shape of a request imports no router, and nothing of the app's wiring.
 */
export interface AppEnv {
  Variables: {
    requestId: string;
    clientAddress: string;
    /** The client address as an answer states it: an IP address, or null when the service could not tell (no socket). */
    observedIp: string | null;
    /** What per-IP rate limits count this client under: its address, or its /64 for IPv6. */
    clientKey: string;
    /** The app's keyed hashes: an event keeps its client key by `clientKey` of these. */
    keyedHashes: KeyedHashes;
    /** The app's metrics, for handlers that count what they changed. */
    metrics: Metrics;
    /** The events the changes of this request wrote: counted as transitions once it has answered. */
    recordedEvents: RecordedEvents;
    /** On admin routes, who the operator token says is acting (`root` for ADMIN_TOKEN). */
    operator: string;
    /** On console routes, the identity provider that signed the operator in, if one did (events' `operator_issuer`). */
    operatorIssuer?: string;
    /** On console routes, the console's Content-Security-Policy (its forms may lead to the identity provider). */
    consoleCsp?: string;
    /** On admin routes, what the operator token allows: `read`, `write`, or `root` (ADMIN_TOKEN). */
    operatorScope: 'read' | 'write' | 'root';
    /**
     * On admin and console routes, the one way to read what may be a little behind (lists, search, exports,
     * object history, console views): on the replica when it serves this operator now, else on the primary
     * (src/db/read-routing.ts). Everything else reads `deps.db`, the primary.
     */
    read: <T>(read: (reader: Database) => Promise<T>) => Promise<T>;
    /**
     * On admin POSTs, what the handler changes the database through: the primary, or with an Idempotency-Key
     * the transaction that holds the key's row (src/http/idempotency-key.ts), which the change must join.
     */
    db: Database;
    /** Set by a route whose answer shows a secret once: kept under its Idempotency-Key an hour, not a day. */
    answerShowsSecret?: boolean;
    /** On console routes, the live console session of the request, if any. */
    consoleSession?: ConsoleSession;
  };
}
