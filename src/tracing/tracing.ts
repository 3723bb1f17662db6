import type { MiddlewareHandler } from 'hono';
import type { Registry } from 'prom-client';
import type { StatementTracer } from '../db/statement-tracing.js';

/**
 * The request variables a request span reads (set by src/http/request-context.ts for every request): named
 * here, so that tracing, which the domain uses, imports nothing of HTTP (the app's own env includes these).
 */
export interface RequestSpanEnv {
  Variables: { requestId: string; clientAddress: string };
}

/** Attributes of a span of our own (token signing), by the OpenTelemetry attribute names. */
export type SpanAttributes = Record<string, string | number | boolean>;

/**
 * Traces, while tracing is on (src/tracing/settings.ts): made by `startTracing`, and handed to what
 * makes spans (the app, the database, the logger). While it is off nothing of this exists: no module of
 * the OpenTelemetry SDK is loaded (prom-client loads the API alone, for its exemplars), no span is made,
 * and every caller runs as it did without it.
 */
export interface Tracing {
  /** The server span of each request (probes aside), a child of the caller's `traceparent`; it answers `traceresponse`. */
  requestSpans: MiddlewareHandler<RequestSpanEnv>;
  /** One statement in a span of its own, inside a recorded request span (none outside one). */
  statement: StatementTracer;
  /** Work of the request's own in a span (token signing), inside a recorded request span. */
  inSpan<T>(name: string, attributes: SpanAttributes, run: () => Promise<T>): Promise<T>;
  /**
   * Work of the service's own, outside any request (a webhook delivery attempt), as a client span that
   * starts a trace of its own; `outcome` adds what the result says (an `error.type` marks it failed).
   */
  inRootSpan<T>(
    name: string,
    attributes: SpanAttributes,
    run: () => Promise<T>,
    outcome: (result: T) => SpanAttributes,
  ): Promise<T>;
  /** For each JSON log line: the active span's `trace_id` and `span_id`, when one is active. */
  logFields(): { trace_id: string; span_id: string } | undefined;
  /** Publishes the spans dropped and queued in the app's Prometheus registry. */
  registerMetrics(registry: Registry): void;
  /** Exports what is queued (waiting at most `timeoutMs`) and stops. */
  shutdown(timeoutMs: number): Promise<void>;
}
