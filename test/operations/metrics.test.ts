import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { createMetricsApp } from '../../src/metrics/metrics-app.js';
import {
  activatedInstall,
  confirmRequest,
  freshClient,
  issueRequest,
  openBrowserSession,
  releaseRequest,
} from '../support/install-flow.js';
import { useTestApp, type TestApp } from '../support/test-app.js';

async function scrape(t: TestApp): Promise<string> {
  const res = await createMetricsApp(t.metrics).request('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one sample, e.g. `slowdns_lifecycle_transitions_total{type="activation.created"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('Prometheus metrics (GET /metrics on METRICS_PORT)', () => {
  const t = useTestApp();

  it('after a lifecycle, /metrics shows each transition, the refusal by its policy, and requests by route pattern and status', async () => {
    const confirmed = await activatedInstall(t);
    expect((await confirmRequest(t, confirmed.activationId, confirmed.installToken)).status).toBe(200);
    const released = await activatedInstall(t);
    expect((await releaseRequest(t, released.activationId)).status).toBe(200);
    expect((await releaseRequest(t, released.activationId)).status).toBe(200); // a repeat changes nothing
    // A third code for one browser session within the hour: refused by issue-session-hour.
    const { address } = freshClient();
    const cookie = await openBrowserSession(t, address);
    for (const expected of [201, 201, 429]) expect((await issueRequest(t, cookie, address)).status).toBe(expected);
    expect((await t.request('/no/such/path/abc123')).status).toBe(404);

    const text = await scrape(t);
    const transition = (type: string) => sample(text, `slowdns_lifecycle_transitions_total{type="${type}"}`);
    expect({
      issued: transition('install_code.issued'),
      created: transition('activation.created'),
      activated: transition('install_code.activated'),
      confirmed: transition('activation.confirmed'),
      consumed: transition('install_code.consumed'),
      released: transition('activation.released'),
      restored: transition('install_code.restored'),
      registered: transition('server.registered'),
    }).toEqual({ issued: 4, created: 2, activated: 2, confirmed: 1, consumed: 1, released: 1, restored: 1, registered: 0 });
    expect(sample(text, 'slowdns_rate_limit_refusals_total{policy="issue-session-hour"}')).toBe(1);
    expect(sample(text, 'slowdns_http_requests_total{method="POST",route="/api/v2/slowdns/install/release",status="200"}')).toBe(2);
    expect(sample(text, 'slowdns_http_requests_total{method="POST",route="/api/v2/slowdns/code/issue",status="429"}')).toBe(1);
    expect(sample(text, 'slowdns_http_request_duration_seconds_count{method="POST",route="/api/v2/slowdns/install/confirm",status="200"}')).toBe(1);
    // The raw path of an unmatched request never becomes a label.
    expect(sample(text, 'slowdns_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(text).not.toContain('abc123');
    expect(sample(text, 'slowdns_database_errors_total{kind="unavailable"}')).toBe(0);
  });

  it('each app counts in its own registry', async () => {
    const other = createMetrics();
    t.metrics.transition('server.revoked');
    expect(await other.registry.getSingleMetricAsString('slowdns_lifecycle_transitions_total')).toContain('type="server.revoked"} 0');
  });

  it('the pool gauges read the database at each scrape', async () => {
    const metrics = createMetrics({ poolStats: () => t.database.poolStats() });
    const text = await metrics.registry.metrics();
    expect(sample(text, 'slowdns_database_pool_max')).toBe(t.database.kind === 'pglite' ? 1 : 10);
    expect(sample(text, 'slowdns_database_pool_connections{state="active"}')).toBeGreaterThanOrEqual(1);
  });

  it('only GET /metrics is served on the metrics port', async () => {
    const res = await createMetricsApp(t.metrics).request('/api/v2/healthz');
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('not_found');
  });

  it('METRICS_PORT: unset serves nothing; set, it listens on loopback by default and must differ from PORT', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(() => loadConfig({ METRICS_PORT: '8080' })).toThrow(/^invalid METRICS_PORT: must differ from PORT$/);
    expect(() => loadConfig({ METRICS_PORT: 'x' })).toThrow(/^invalid METRICS_PORT: /);
  });
});
