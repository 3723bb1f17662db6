// OpenTelemetry itself: imported only by startTracing (tracing.ts), dynamically, so that a server with
// tracing off never loads it (the build puts this module and its packages in a chunk of their own).
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import {
  ATTR_DB_QUERY_SUMMARY,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_RESPONSE_STATUS_CODE,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import type { Logger } from '../logger.js';
import { setActiveTracing } from './active-tracing.js';
import { ConsoleSpanExporter } from './console-exporter.js';
import { WatchedExporter } from './watched-exporter.js';
import { SpanCounts } from './span-counts.js';
import { requestSpans } from './request-spans.js';
import type { SamplerName, TracingSettings } from './settings.js';
import { statementSummary } from './statement-summary.js';
import type { SpanAttributes, Tracing } from './tracing.js';

const TRACER_NAME = 'slowdns-activation';

function samplerFor({ name, ratio }: TracingSettings['sampler']): Sampler {
  const root: Record<SamplerName, () => Sampler> = {
    always_on: () => new AlwaysOnSampler(),
    always_off: () => new AlwaysOffSampler(),
    traceidratio: () => new TraceIdRatioBasedSampler(ratio),
    parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
    parentbased_traceidratio: () => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
  };
  return root[name]();
}

function exporterFor(settings: TracingSettings, logger: Logger): SpanExporter {
  const target = settings.export;
  if (target.kind === 'console') return new ConsoleSpanExporter(logger);
  // Every option given, so that nothing falls back to the exporter's own reading of the environment.
  const options: ConstructorParameters<typeof OtlpProtobufExporter>[0] = {
    url: target.url,
    headers: target.headers,
    timeoutMillis: target.timeoutMs,
    // The exporter's CompressionAlgorithm enum, whose values are these very strings.
    compression: target.compression as NonNullable<
      ConstructorParameters<typeof OtlpProtobufExporter>[0]
    >['compression'],
    httpAgentOptions: { keepAlive: true },
  };
  return target.protocol === 'http/json' ? new OtlpJsonExporter(options) : new OtlpProtobufExporter(options);
}

/** What a failed span's `error.type` says: the error code (an SQLSTATE, an API error's code) or the class. */
function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && code) return code;
  return error instanceof Error ? error.name : 'unknown';
}

/** The active span, when it is one that records (a traced request); the children of others are not made. */
function recordingParent(): Span | undefined {
  const span = trace.getSpan(context.active());
  return span?.isRecording() ? span : undefined;
}

export function createTracing(settings: TracingSettings, logger: Logger): Tracing {
  // The processor's and the exporter's failures are counted and logged by SpanCounts and WatchedExporter;
  // OpenTelemetry's own error handler would only repeat them.
  setGlobalErrorHandler(() => {});
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);

  const counts = new SpanCounts();
  const processor = new BatchSpanProcessor({
    exporter: new WatchedExporter(exporterFor(settings, logger), counts, logger),
    maxQueueSize: settings.batch.maxQueueSize,
    maxExportBatchSize: settings.batch.maxExportBatchSize,
    scheduledDelayMillis: settings.batch.scheduledDelayMs,
    exportTimeoutMillis: settings.batch.exportTimeoutMs,
    selfObsMeterProvider: counts.processorMeterProvider(),
  });
  const provider = new TracerProvider({
    resource: defaultResource().merge(resourceFromAttributes(settings.resource)),
    sampler: samplerFor(settings.sampler),
    spanProcessors: [processor],
  });
  const tracer = provider.getTracer(TRACER_NAME);

  const inChildSpan = <T>(
    name: string,
    kind: SpanKind,
    attributes: SpanAttributes,
    run: () => Promise<T>,
    failure?: (span: Span, error: unknown) => void,
  ): Promise<T> => {
    if (!recordingParent()) return run();
    return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
      try {
        return await run();
      } catch (error) {
        // The type only, never the message: a failed query's message holds its parameters.
        span.setAttribute(ATTR_ERROR_TYPE, errorType(error));
        failure?.(span, error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  };

  const tracing: Tracing = {
    requestSpans: requestSpans(tracer),
    statement: (text, run) => {
      const summary = statementSummary(text);
      const attributes = {
        [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
        [ATTR_DB_QUERY_SUMMARY]: summary,
        [ATTR_DB_QUERY_TEXT]: text,
      };
      return inChildSpan(summary, SpanKind.CLIENT, attributes, run, (span, error) => {
        const code = (error as { code?: unknown } | undefined)?.code;
        if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code))
          span.setAttribute(ATTR_DB_RESPONSE_STATUS_CODE, code);
      });
    },
    inSpan: (name, attributes, run) => inChildSpan(name, SpanKind.INTERNAL, attributes, run),
    inRootSpan: (name, attributes, run, outcome) =>
      tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes, root: true }, async (span) => {
        try {
          const result = await run();
          const said = outcome(result);
          span.setAttributes(said);
          if (said[ATTR_ERROR_TYPE] !== undefined) span.setStatus({ code: SpanStatusCode.ERROR });
          return result;
        } catch (error) {
          span.setAttribute(ATTR_ERROR_TYPE, errorType(error));
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      }),
    logFields: () => {
      const span = trace.getSpan(context.active());
      if (!span) return undefined;
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
    registerMetrics: (registry) => counts.register(registry),
    shutdown: async (timeoutMs) => {
      setActiveTracing(undefined);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        provider.shutdown().catch(() => {}),
        new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
      clearTimeout(timer);
      context.disable();
    },
  };
  setActiveTracing(tracing);
  return tracing;
}
