import { z } from '@hono/zod-openapi';
import { ConfigError } from '../config-error.js';

/**
 * OpenTelemetry's standard variables (opentelemetry.io, "SDK environment variables"), the ones this
 * service honours. Read by `src/main.ts` alone, as the rest of the configuration; nothing here loads
 * OpenTelemetry itself.
 */
const milliseconds = (max: number) => z.coerce.number().int().positive().max(max).optional();
const queueSize = z.coerce.number().int().min(1).max(1_000_000).optional();
const endpoint = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional();
const protocol = z.string().optional();
const compression = z.enum(['gzip', 'none'], { error: 'must be gzip or none' }).optional();

const TracingEnvSchema = z.object({
  OTEL_SDK_DISABLED: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'console', 'none'], { error: 'must be otlp, console or none' }).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: z.string().optional(),
  OTEL_EXPORTER_OTLP_TIMEOUT: milliseconds(600_000),
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: milliseconds(600_000),
  OTEL_EXPORTER_OTLP_COMPRESSION: compression,
  OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: compression,
  OTEL_SERVICE_NAME: z.string().min(1).max(255).optional(),
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
  OTEL_TRACES_SAMPLER: z
    .enum(
      [
        'always_on',
        'always_off',
        'traceidratio',
        'parentbased_always_on',
        'parentbased_always_off',
        'parentbased_traceidratio',
      ],
      {
        error:
          'must be always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio',
      },
    )
    .optional(),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number({ error: 'must be a number from 0 to 1' }).min(0).max(1).optional(),
  OTEL_BSP_SCHEDULE_DELAY: milliseconds(600_000),
  OTEL_BSP_EXPORT_TIMEOUT: milliseconds(600_000),
  OTEL_BSP_MAX_QUEUE_SIZE: queueSize,
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: queueSize,
});

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export type SamplerName = NonNullable<z.infer<typeof TracingEnvSchema>['OTEL_TRACES_SAMPLER']>;

export interface OtlpExport {
  kind: 'otlp';
  /** Where spans are posted: the traces endpoint as given, or the generic one with `v1/traces` appended. */
  url: string;
  protocol: OtlpProtocol;
  /** Sent with each export (a collector's API key): never logged. */
  headers: Record<string, string>;
  timeoutMs: number;
  compression: 'gzip' | 'none';
}

/** Each finished span as one JSON log line (`"msg":"span"`) on stdout, beside the others. */
export interface ConsoleExport {
  kind: 'console';
}

export interface TracingSettings {
  export: OtlpExport | ConsoleExport;
  /** The resource's attributes: `service.name` and OTEL_RESOURCE_ATTRIBUTES's. */
  resource: Record<string, string>;
  sampler: { name: SamplerName; ratio: number };
  /** The batch span processor: spans wait in a queue of at most `maxQueueSize` (more are dropped, and counted). */
  batch: { scheduledDelayMs: number; exportTimeoutMs: number; maxQueueSize: number; maxExportBatchSize: number };
}

export const DEFAULT_SERVICE_NAME = 'slowdns-activation';
/** The OTLP/HTTP default (the specification's): a collector on this machine. */
const DEFAULT_ENDPOINT = 'http://localhost:4318/';

/**
 * Environment → tracing settings, or undefined when tracing is off: it is on when an OTLP endpoint or
 * OTEL_TRACES_EXPORTER is set, unless OTEL_TRACES_EXPORTER is `none` or OTEL_SDK_DISABLED is `true`.
 * A bad value throws a ConfigError whose message is one line naming the variable (never its value: a
 * header can hold a collector's key).
 */
export function loadTracingSettings(env: Record<string, string | undefined>): TracingSettings | undefined {
  const cleaned = Object.fromEntries(
    Object.keys(TracingEnvSchema.shape).map((name) => [name, env[name] === '' ? undefined : env[name]]),
  );
  const parsed = TracingEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`invalid ${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  const wanted =
    e.OTEL_TRACES_EXPORTER !== undefined ||
    e.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined ||
    e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined;
  if (!wanted || e.OTEL_TRACES_EXPORTER === 'none' || e.OTEL_SDK_DISABLED === 'true') return undefined;

  const maxQueueSize = e.OTEL_BSP_MAX_QUEUE_SIZE ?? 2048;
  const maxExportBatchSize = e.OTEL_BSP_MAX_EXPORT_BATCH_SIZE ?? Math.min(512, maxQueueSize);
  if (maxExportBatchSize > maxQueueSize)
    throw new ConfigError('invalid OTEL_BSP_MAX_EXPORT_BATCH_SIZE: must not exceed OTEL_BSP_MAX_QUEUE_SIZE');
  const sampler = e.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on';
  const resource = { ...keyValueList(e.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES') };
  resource['service.name'] = e.OTEL_SERVICE_NAME ?? resource['service.name'] ?? DEFAULT_SERVICE_NAME;
  return {
    export: e.OTEL_TRACES_EXPORTER === 'console' ? { kind: 'console' } : otlpExport(e),
    resource,
    sampler: { name: sampler, ratio: e.OTEL_TRACES_SAMPLER_ARG ?? 1 },
    batch: {
      scheduledDelayMs: e.OTEL_BSP_SCHEDULE_DELAY ?? 5000,
      exportTimeoutMs: e.OTEL_BSP_EXPORT_TIMEOUT ?? 30_000,
      maxQueueSize,
      maxExportBatchSize,
    },
  };
}

function otlpExport(e: z.infer<typeof TracingEnvSchema>): OtlpExport {
  const protocolVariable =
    e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL !== undefined
      ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
      : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  if (protocol === 'grpc')
    throw new ConfigError(`invalid ${protocolVariable}: grpc is not supported, use http/protobuf or http/json`);
  if (protocol !== 'http/protobuf' && protocol !== 'http/json')
    throw new ConfigError(`invalid ${protocolVariable}: must be http/protobuf or http/json`);
  // The generic endpoint is the collector's base: the traces path is appended to it (the specification's rule).
  const generic = e.OTEL_EXPORTER_OTLP_ENDPOINT ?? DEFAULT_ENDPOINT;
  const url = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${generic.endsWith('/') ? generic : `${generic}/`}v1/traces`;
  return {
    kind: 'otlp',
    url,
    protocol,
    headers: {
      ...keyValueList(e.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...keyValueList(e.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    },
    timeoutMs: e.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? e.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000,
    compression: e.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION ?? e.OTEL_EXPORTER_OTLP_COMPRESSION ?? 'none',
  };
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `key1=value1,key2=value2`, values percent-encoded (the W3C Baggage form the specification uses for both). */
function keyValueList(raw: string | undefined, variable: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  if (raw === undefined) return pairs;
  for (const item of raw.split(',')) {
    if (item.trim() === '') continue;
    const at = item.indexOf('=');
    const key = at === -1 ? '' : item.slice(0, at).trim();
    let value: string;
    try {
      value = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      value = '\n';
    }
    if (!TOKEN.test(key) || /[\r\n\0]/.test(value))
      throw new ConfigError(`invalid ${variable}: must be key=value pairs separated by commas, values percent-encoded`);
    pairs[key] = value;
  }
  return pairs;
}
