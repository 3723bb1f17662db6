import { hrTimeToMilliseconds, ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from '../logger.js';

/**
 * `OTEL_TRACES_EXPORTER=console`: each finished span as one JSON log line (`"msg":"span"`), so stdout
 * stays JSON lines (the SDK's own console exporter prints objects across several lines).
 */
export class ConsoleSpanExporter implements SpanExporter {
  constructor(private readonly logger: Logger) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) {
      const { traceId, spanId } = span.spanContext();
      this.logger.info('span', {
        name: span.name,
        kind: SpanKind[span.kind].toLowerCase(),
        trace_id: traceId,
        span_id: spanId,
        ...(span.parentSpanContext ? { parent_span_id: span.parentSpanContext.spanId } : {}),
        duration_ms: Math.round(hrTimeToMilliseconds(span.duration) * 1000) / 1000,
        status: span.status.code,
        attributes: span.attributes,
      });
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
