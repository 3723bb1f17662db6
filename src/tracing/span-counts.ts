import {
  createNoopMeter,
  type Attributes,
  type Meter,
  type MeterProvider,
  type ObservableCallback,
} from '@opentelemetry/api';
import { Counter, Gauge, type Registry } from 'prom-client';

/** The batch span processor's own report of each span it is done with (OpenTelemetry's SDK conventions). */
const PROCESSED = 'otel.sdk.processor.span.processed';
const QUEUE_SIZE = 'otel.sdk.processor.span.queue.size';

/**
 * Spans that never reached the collector, and the queue they wait in, for /metrics. The processor says
 * what it drops (`queue_full`: the queue was full when the span ended) through the meter provider the
 * SDK takes for its own metrics, which is all this reads of it; the exporter wrapper counts the spans of
 * the exports that failed.
 */
export class SpanCounts {
  readonly dropped = { queue_full: 0, export_failed: 0 };
  exported = 0;
  #queueSize: ObservableCallback | undefined;

  /** How many spans wait in the processor's queue now. */
  queued(): number {
    let size = 0;
    void this.#queueSize?.({ observe: (value: number) => void (size = value) });
    return size;
  }

  processorMeterProvider(): MeterProvider {
    const noop = createNoopMeter();
    const meter: Meter = Object.create(noop) as Meter;
    meter.createCounter = ((name: string, options) => {
      if (name !== PROCESSED) return noop.createCounter(name, options);
      return {
        add: (count: number, attributes?: Attributes) =>
          void (attributes?.['error.type'] === 'queue_full' && (this.dropped.queue_full += count)),
      };
    }) as Meter['createCounter'];
    meter.createObservableUpDownCounter = ((name: string, options) => {
      if (name !== QUEUE_SIZE) return noop.createObservableUpDownCounter(name, options);
      return {
        addCallback: (callback: ObservableCallback) => void (this.#queueSize = callback),
        removeCallback: () => void (this.#queueSize = undefined),
      };
    }) as Meter['createObservableUpDownCounter'];
    return { getMeter: () => meter };
  }

  register(registry: Registry): void {
    const counts = this;
    new Counter({
      name: 'slowdns_trace_spans_dropped_total',
      help: 'Spans that never reached the trace collector: queue_full (the export queue was full when the span ended) or export_failed (the collector refused, failed or did not answer in time).',
      labelNames: ['reason'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [reason, count] of Object.entries(counts.dropped)) this.inc({ reason }, count);
      },
    });
    new Counter({
      name: 'slowdns_trace_spans_exported_total',
      help: 'Spans the trace collector accepted.',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(counts.exported);
      },
    });
    new Gauge({
      name: 'slowdns_trace_spans_queued',
      help: 'Spans waiting to be exported; at most OTEL_BSP_MAX_QUEUE_SIZE, past which they are dropped.',
      registers: [registry],
      collect() {
        this.set(counts.queued());
      },
    });
  }
}
