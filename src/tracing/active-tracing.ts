import type { SpanAttributes, Tracing } from './tracing.js';

/**
 * The process's tracing while it is on, for code that is handed no dependencies (token signing, deep in
 * the domain): OpenTelemetry's own API works this way (one global provider, a no-op until one is set),
 * but importing it would load it while tracing is off. Set by `createTracing` and cleared by its shutdown.
 */
let active: Pick<Tracing, 'inSpan' | 'inRootSpan'> | undefined;

export function setActiveTracing(tracing: Pick<Tracing, 'inSpan' | 'inRootSpan'> | undefined): void {
  active = tracing;
}

/** `run` in a span named `name` when tracing is on and a request is traced; otherwise `run()` itself. */
export function inSpan<T>(name: string, attributes: SpanAttributes, run: () => Promise<T>): Promise<T> {
  return active ? active.inSpan(name, attributes, run) : run();
}

/** `run` as a span starting a trace of its own when tracing is on (work outside any request); otherwise `run()`. */
export function inRootSpan<T>(
  name: string,
  attributes: SpanAttributes,
  run: () => Promise<T>,
  outcome: (result: T) => SpanAttributes,
): Promise<T> {
  return active ? active.inRootSpan(name, attributes, run, outcome) : run();
}
