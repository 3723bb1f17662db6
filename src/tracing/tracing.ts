import type { MiddlewareHandler } from 'hono';
import type { Registry } from 'prom-client';
import type { StatementTracer } from '../db/statement-tracing.js';
import type { AppEnv } from '../http/router.js';
import type { Logger } from '../logger.js';
import type { TracingSettings } from './settings.js';

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
  requestSpans: MiddlewareHandler<AppEnv>;
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

/**
 * Loads OpenTelemetry (a chunk of its own in the build, read only here) and starts exporting. Also sets
 * the process's span runner (active-tracing.ts) for the code handed no dependencies.
 */
export async function startTracing(settings: TracingSettings, logger: Logger): Promise<Tracing> {
  const { createTracing } = await import('./sdk.js');
  return createTracing(settings, logger);
}
