import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from '../logger.js';
import type { SpanCounts } from './span-counts.js';

/**
 * The exporter, counted: the spans of a failed export are dropped (counted), and the log says once when
 * exports start failing and once when they work again, not at each failed batch.
 */
export class WatchedExporter implements SpanExporter {
  #failing = false;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly counts: SpanCounts,
    private readonly logger: Logger,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exporter.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) {
        this.counts.exported += spans.length;
        if (this.#failing) this.logger.info('trace export works again');
        this.#failing = false;
      } else {
        this.counts.dropped.export_failed += spans.length;
        if (!this.#failing)
          this.logger.warn('trace export failed, spans are dropped until it works again', {
            error: result.error?.message ?? 'unknown',
          });
        this.#failing = true;
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }
}
