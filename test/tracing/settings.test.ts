import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config-error.js';
import { loadTracingSettings } from '../../src/tracing/settings.js';
import { statementSummary } from '../../src/tracing/statement-summary.js';

const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.internal:4318' };

describe('tracing settings from the OTEL_* variables', () => {
  it('is off unless an OTLP endpoint or OTEL_TRACES_EXPORTER asks for it, and off again with none or OTEL_SDK_DISABLED', () => {
    expect(loadTracingSettings({})).toBeUndefined();
    expect(
      loadTracingSettings({
        OTEL_SERVICE_NAME: 'x',
        OTEL_TRACES_SAMPLER: 'always_on',
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
      }),
    ).toBeUndefined();
    expect(loadTracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(loadTracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(loadTracingSettings(endpoint)).toBeDefined();
    expect(
      loadTracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector.internal:4318/v1/traces' }),
    ).toBeDefined();
    expect(loadTracingSettings({ OTEL_TRACES_EXPORTER: 'console' })?.export).toEqual({ kind: 'console' });
  });

  it("has the specification's defaults, and this service's name", () => {
    expect(loadTracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({
      export: {
        kind: 'otlp',
        url: 'http://localhost:4318/v1/traces',
        protocol: 'http/protobuf',
        headers: {},
        timeoutMs: 10_000,
        compression: 'none',
      },
      resource: { 'service.name': 'slowdns-activation' },
      sampler: { name: 'parentbased_always_on', ratio: 1 },
      batch: { scheduledDelayMs: 5000, exportTimeoutMs: 30_000, maxQueueSize: 2048, maxExportBatchSize: 512 },
    });
  });

  it('appends v1/traces to the generic endpoint and takes the traces endpoint as it is', () => {
    const url = (env: Record<string, string>) => (loadTracingSettings(env)!.export as { url: string }).url;
    expect(url(endpoint)).toBe('http://collector.internal:4318/v1/traces');
    expect(url({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example/base/' })).toBe(
      'https://otlp.example/base/v1/traces',
    );
    expect(url({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example/base' })).toBe(
      'https://otlp.example/base/v1/traces',
    );
    expect(url({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otlp.example/custom/path' })).toBe(
      'https://otlp.example/custom/path',
    );
  });

  it('reads the protocol, headers, timeout and compression, the TRACES_ variable before the generic one', () => {
    expect(
      loadTracingSettings({
        ...endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=ops,authorization=Basic%20dXNlcjpwYXNz',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=traces',
        OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
        OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '3000',
        OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      })?.export,
    ).toEqual({
      kind: 'otlp',
      url: 'http://collector.internal:4318/v1/traces',
      protocol: 'http/json',
      headers: { 'x-tenant': 'traces', authorization: 'Basic dXNlcjpwYXNz' },
      timeoutMs: 3000,
      compression: 'gzip',
    });
  });

  it('reads the resource, the sampler and the batch queue', () => {
    expect(
      loadTracingSettings({
        ...endpoint,
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod,service.name=ignored,service.namespace=dns%20edge',
        OTEL_SERVICE_NAME: 'activation-eu',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_BSP_MAX_QUEUE_SIZE: '100',
        OTEL_BSP_SCHEDULE_DELAY: '250',
        OTEL_BSP_EXPORT_TIMEOUT: '4000',
      }),
    ).toMatchObject({
      resource: {
        'deployment.environment.name': 'prod',
        'service.name': 'activation-eu',
        'service.namespace': 'dns edge',
      },
      sampler: { name: 'parentbased_traceidratio', ratio: 0.25 },
      batch: { scheduledDelayMs: 250, exportTimeoutMs: 4000, maxQueueSize: 100, maxExportBatchSize: 100 },
    });
    expect(
      loadTracingSettings({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes' })?.resource[
        'service.name'
      ],
    ).toBe('from-attributes');
  });

  it.each([
    [
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      'invalid OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported, use http/protobuf or http/json',
    ],
    [
      { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' },
      'invalid OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: must be http/protobuf or http/json',
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      'invalid OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:// or https:// URL',
    ],
    [
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' },
      'invalid OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must be an http:// or https:// URL',
    ],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'invalid OTEL_TRACES_EXPORTER: must be otlp, console or none'],
    [
      { OTEL_TRACES_SAMPLER: 'jaeger_remote' },
      'invalid OTEL_TRACES_SAMPLER: must be always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio',
    ],
    [{ OTEL_TRACES_SAMPLER_ARG: '2' }, 'invalid OTEL_TRACES_SAMPLER_ARG: '],
    [{ OTEL_BSP_MAX_QUEUE_SIZE: '0' }, 'invalid OTEL_BSP_MAX_QUEUE_SIZE: '],
    [
      { OTEL_BSP_MAX_QUEUE_SIZE: '10', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '20' },
      'invalid OTEL_BSP_MAX_EXPORT_BATCH_SIZE: must not exceed OTEL_BSP_MAX_QUEUE_SIZE',
    ],
    [{ OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' }, 'invalid OTEL_EXPORTER_OTLP_TIMEOUT: '],
    [{ OTEL_EXPORTER_OTLP_COMPRESSION: 'zstd' }, 'invalid OTEL_EXPORTER_OTLP_COMPRESSION: must be gzip or none'],
    [
      { OTEL_RESOURCE_ATTRIBUTES: 'no-equals-sign' },
      'invalid OTEL_RESOURCE_ATTRIBUTES: must be key=value pairs separated by commas, values percent-encoded',
    ],
  ])('refuses %o with one line naming the variable', (env, message) => {
    const load = () => loadTracingSettings({ ...endpoint, ...env });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(message);
    expect(() => load()).not.toThrow(/\n/);
  });

  it("never repeats a header's value when refusing it: it can be a collector's key", () => {
    const load = () =>
      loadTracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer s3cret%ZZ' });
    expect(load).toThrow(
      'invalid OTEL_EXPORTER_OTLP_HEADERS: must be key=value pairs separated by commas, values percent-encoded',
    );
    expect(load).not.toThrow(/s3cret/);
  });
});

describe("a statement span's name", () => {
  it.each([
    ['select "id", "status" from "install_codes" where "install_codes"."id" = $1', 'SELECT install_codes'],
    ['begin', 'BEGIN'],
    ['select 1', 'SELECT'],
    [
      `with counted as (insert into rate_limit_buckets (limit_name) select 1 on conflict (limit_name) do update set count = rate_limit_buckets.count + 1 returning limit_name),
noted as (update install_codes set prechecked_at = $3 where code_hash = $2)
select c.id from (select 1) as one left join install_codes c on c.code_hash = $2`,
      'INSERT rate_limit_buckets UPDATE install_codes',
    ],
    [
      'with gone as (delete from browser_sessions where expires_at < $1 returning 1) select count(*) from gone',
      'DELETE browser_sessions',
    ],
  ])('%s is %s', (text, name) => {
    expect(statementSummary(text)).toBe(name);
  });
});
