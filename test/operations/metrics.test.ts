import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { stateCountsReading } from '../../src/domain/admin-lists/state-counts-reading.js';
import { stateCounts } from '../../src/domain/admin-lists/state-counts.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { createMetricsApp } from '../../src/metrics/metrics-app.js';
import { ADMIN_TOKEN, adminAction } from '../admin/admin-requests.js';
import {
  AGENT_VERSION,
  bearer,
  checkinRequest,
  registeredServer,
  registerRequest,
  revokeRequest,
} from '../legacy/agent-requests.js';
import {
  activatedInstall,
  activateRequest,
  cancelRequest,
  confirmRequest,
  freshClient,
  issue,
  issueRequest,
  newBrowser,
  openBrowserSession,
  precheckToken,
  releaseRequest,
} from '../support/install-flow.js';
import { useTestApp, type TestApp } from '../support/test-app.js';

async function scrape(t: TestApp): Promise<string> {
  const res = await createMetricsApp(t.metrics).request('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one sample, e.g. `slowdns_lifecycle_transitions_total{type="activation.created",actor="installer"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('Prometheus metrics (GET /metrics on METRICS_PORT)', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  /** A code issued by a new browser, and that browser's cancel of it. */
  async function browserCode() {
    const browser = await newBrowser(t);
    const issued = await issue(t, browser);
    return { ...issued, cancel: () => cancelRequest(t, browser, issued.id) };
  }

  it('after a lifecycle, /metrics shows each transition, the refusal by its policy, and requests by route pattern and status', async () => {
    const confirmed = await activatedInstall(t);
    expect((await confirmRequest(t, confirmed.activationId, confirmed.installToken)).status).toBe(200);
    const released = await activatedInstall(t);
    expect((await releaseRequest(t, released.activationId, { address: released.address })).status).toBe(200);
    expect((await releaseRequest(t, released.activationId, { address: released.address })).status).toBe(200); // a repeat changes nothing
    // A third code for one browser session within the hour: refused by issue-session-hour.
    const { address } = freshClient();
    const cookie = await openBrowserSession(t, address);
    for (const expected of [201, 201, 429]) expect((await issueRequest(t, cookie, address)).status).toBe(expected);
    expect((await t.request('/no/such/path/abc123')).status).toBe(404);

    const text = await scrape(t);
    const transition = (type: string, actor = 'installer') =>
      sample(text, `slowdns_lifecycle_transitions_total{type="${type}",actor="${actor}"}`);
    expect({
      issued: transition('install_code.issued', 'browser'),
      created: transition('activation.created'),
      activated: transition('install_code.activated'),
      confirmed: transition('activation.confirmed'),
      consumed: transition('install_code.consumed'),
      released: transition('activation.released'),
      restored: transition('install_code.restored'),
      registered: transition('server.registered'),
    }).toEqual({
      issued: 4,
      created: 2,
      activated: 2,
      confirmed: 1,
      consumed: 1,
      released: 1,
      restored: 1,
      registered: 0,
    });
    // Nobody else acted: the operators' and browsers' series are there, at 0.
    expect([
      transition('activation.released', 'operator'),
      transition('install_code.revoked', 'browser'),
      transition('server.revoked', 'agent'),
    ]).toEqual([0, 0, 0]);
    expect(sample(text, 'slowdns_rate_limit_refusals_total{policy="issue-session-hour"}')).toBe(1);
    expect(
      sample(text, 'slowdns_http_requests_total{method="POST",route="/api/v2/slowdns/install/release",status="200"}'),
    ).toBe(2);
    expect(
      sample(text, 'slowdns_http_requests_total{method="POST",route="/api/v2/slowdns/code/issue",status="429"}'),
    ).toBe(1);
    expect(
      sample(
        text,
        'slowdns_http_request_duration_seconds_count{method="POST",route="/api/v2/slowdns/install/confirm",status="200"}',
      ),
    ).toBe(1);
    // The raw path of an unmatched request never becomes a label.
    expect(sample(text, 'slowdns_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(text).not.toContain('abc123');
    expect(sample(text, 'slowdns_database_errors_total{kind="unavailable"}')).toBe(0);
  });

  it("counts operators' and browsers' actions as transitions of their own actor, and never an idempotent repeat", async () => {
    const before = await scrape(t);
    // Operator: force-release without restoring the code (its server revoked with it), release restoring
    // it, revoke a pending code, revoke a server by the admin route and by /revoke with ADMIN_TOKEN.
    const forced = await registeredServer(t);
    for (let i = 0; i < 2; i++)
      expect(
        (await adminAction(t, `activations/${forced.activationId}/release`, { restore_install_code: false })).status,
      ).toBe(200);
    const restored = await activatedInstall(t);
    expect((await adminAction(t, `activations/${restored.activationId}/release`, {})).status).toBe(200);
    const pending = await browserCode();
    for (let i = 0; i < 2; i++) expect((await adminAction(t, `install-codes/${pending.id}/revoke`)).status).toBe(200);
    const byPath = await registeredServer(t);
    for (let i = 0; i < 2; i++) expect((await adminAction(t, `servers/${byPath.serverId}/revoke`)).status).toBe(200);
    const byRevoke = await registeredServer(t);
    expect((await revokeRequest(t, bearer(ADMIN_TOKEN), { server_id: byRevoke.serverId })).status).toBe(200);
    // Agent: a server revokes itself.
    const own = await registeredServer(t);
    expect((await revokeRequest(t, bearer(own.agentToken))).status).toBe(200);
    // Browser: cancel a waiting code, a code whose install is running (released with it), and one whose
    // install has registered its server (revoked with it); twice each.
    const waiting = await browserCode();
    const running = await browserCode();
    expect((await activateRequest(t, running.code, await precheckToken(t, running.code))).status).toBe(200);
    const registering = await browserCode();
    const activated = await (
      await activateRequest(t, registering.code, await precheckToken(t, registering.code))
    ).json();
    const registration = {
      activation_id: activated.data.activation_id,
      install_token: activated.data.install_token,
      agent_version: AGENT_VERSION,
    };
    expect((await registerRequest(t, registration)).status).toBe(201);
    for (const code of [waiting, running, registering, waiting, running, registering])
      expect((await code.cancel()).status).toBe(200);

    const after = await scrape(t);
    const added = (type: string, actor: string) => {
      const series = `slowdns_lifecycle_transitions_total{type="${type}",actor="${actor}"}`;
      return (sample(after, series) ?? NaN) - (sample(before, series) ?? NaN);
    };
    expect({
      operatorReleased: added('activation.released', 'operator'),
      operatorRestored: added('install_code.restored', 'operator'),
      operatorRevokedCode: added('install_code.revoked', 'operator'),
      operatorRevokedServer: added('server.revoked', 'operator'),
      agentRevokedServer: added('server.revoked', 'agent'),
      browserRevokedCode: added('install_code.revoked', 'browser'),
      browserReleased: added('activation.released', 'browser'),
      browserRevokedServer: added('server.revoked', 'browser'),
      installerReleased: added('activation.released', 'installer'),
      installerRevokedServer: added('server.revoked', 'installer'),
    }).toEqual({
      operatorReleased: 2,
      operatorRestored: 1,
      // The forced release's code, and the pending code.
      operatorRevokedCode: 2,
      // The forced release's server, the admin route's, /revoke's.
      operatorRevokedServer: 3,
      agentRevokedServer: 1,
      browserRevokedCode: 3,
      browserReleased: 2,
      browserRevokedServer: 1,
      installerReleased: 0,
      installerRevokedServer: 0,
    });
  });

  it('a scrape reads the counts without changing them', async () => {
    const metrics = createMetrics();
    const labels = { method: 'POST', route: '/api/v2/slowdns/install/activate', status: 200 };
    const series = 'method="POST",route="/api/v2/slowdns/install/activate",status="200"';
    metrics.observeRequest(labels, 0.004);
    metrics.observeRequest(labels, 0.02);
    metrics.transition('activation.created', 'installer');
    const first = await metrics.registry.metrics();
    const second = await metrics.registry.metrics();
    expect(second).toBe(first);
    expect(sample(first, `slowdns_http_requests_total{${series}}`)).toBe(2);
    expect(sample(first, `slowdns_http_request_duration_seconds_count{${series}}`)).toBe(2);
    expect(sample(first, `slowdns_http_request_duration_seconds_bucket{le="0.005",${series}}`)).toBe(1);
    expect(sample(first, 'slowdns_lifecycle_transitions_total{type="activation.created",actor="installer"}')).toBe(1);
    expect(sample(first, 'slowdns_lifecycle_transitions_total{type="activation.confirmed",actor="installer"}')).toBe(0);
    metrics.observeRequest(labels, 0.3);
    metrics.transition('activation.created', 'installer');
    const third = await metrics.registry.metrics();
    expect(sample(third, `slowdns_http_requests_total{${series}}`)).toBe(3);
    expect(sample(third, `slowdns_http_request_duration_seconds_count{${series}}`)).toBe(3);
    expect(sample(third, 'slowdns_lifecycle_transitions_total{type="activation.created",actor="installer"}')).toBe(2);
  });

  it('each app counts in its own registry', async () => {
    const other = createMetrics();
    t.metrics.transition('server.revoked', 'operator');
    expect(await other.registry.getSingleMetricAsString('slowdns_lifecycle_transitions_total')).toContain(
      'type="server.revoked",actor="operator"} 0',
    );
  });

  it('the pool gauges read the database at each scrape', async () => {
    const metrics = createMetrics({ poolStats: () => t.database.poolStats() });
    const text = await metrics.registry.metrics();
    expect(sample(text, 'slowdns_database_pool_max')).toBe(t.database.kind === 'pglite' ? 1 : 10);
    expect(sample(text, 'slowdns_database_pool_connections{state="active"}')).toBeGreaterThanOrEqual(1);
  });

  it('the fleet gauges show the periodic reading, which moves with the clock and the fleet (stale, dead, expired, revoked)', async () => {
    const fleet = stateCountsReading(() => stateCounts(t.database.db, t.clock.now(), { deadAfterSeconds: 3600 }));
    const metrics = createMetrics({
      counts: fleet,
    });
    const gauges = async () => {
      await fleet.refresh(); // what the periodic pass does every 15 s
      const text = await metrics.registry.metrics();
      const servers = Object.fromEntries(
        ['active', 'stale', 'dead', 'revoked'].map((health) => [
          health,
          sample(text, `slowdns_servers{health="${health}"}`),
        ]),
      );
      const codes = Object.fromEntries(
        ['issued', 'activated', 'consumed', 'revoked'].map((status) => [
          status,
          sample(text, `slowdns_install_codes{status="${status}"}`),
        ]),
      );
      return {
        servers,
        codes,
        awaiting: sample(text, 'slowdns_activations_awaiting_confirm'),
        webhooks: sample(text, 'slowdns_webhook_deliveries_pending'),
      };
    };
    const server = await registeredServer(t);
    const confirmed = await activatedInstall(t);
    expect((await confirmRequest(t, confirmed.activationId, confirmed.installToken)).status).toBe(200);
    await issue(t, await newBrowser(t));
    expect(await gauges()).toEqual({
      servers: { active: 1, stale: 0, dead: 0, revoked: 0 },
      codes: { issued: 1, activated: 1, consumed: 1, revoked: 0 },
      awaiting: 1,
      webhooks: 0,
    });
    t.clock.advance(601); // two check-in intervals missed; the codes (900 s) and the install token (3600 s) still live
    expect((await gauges()).servers).toEqual({ active: 0, stale: 1, dead: 0, revoked: 0 });
    t.clock.advance(3000); // past SERVER_DEAD_AFTER_SECONDS and every expiry
    expect(await gauges()).toEqual({
      servers: { active: 0, stale: 0, dead: 1, revoked: 0 },
      codes: { issued: 0, activated: 0, consumed: 0, revoked: 0 },
      awaiting: 0,
      webhooks: 0,
    });
    expect((await checkinRequest(t, bearer(server.agentToken))).status).toBe(200);
    expect((await gauges()).servers).toEqual({ active: 1, stale: 0, dead: 0, revoked: 0 });
    expect((await revokeRequest(t, bearer(server.agentToken))).status).toBe(200);
    expect((await gauges()).servers).toEqual({ active: 0, stale: 0, dead: 0, revoked: 1 });
  });

  it('only GET /metrics is served on the metrics port', async () => {
    const res = await createMetricsApp(t.metrics).request('/api/v2/healthz');
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('not_found');
  });

  it('METRICS_PORT unset serves no metrics', () => {
    expect(loadConfig({}).metrics).toBeUndefined();
  });

  it('METRICS_PORT set listens on loopback by default', () => {
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
  });

  it('METRICS_PORT must be a port other than PORT', () => {
    expect(() => loadConfig({ METRICS_PORT: '8080' })).toThrow(/^invalid METRICS_PORT: must differ from PORT$/);
    expect(() => loadConfig({ METRICS_PORT: 'x' })).toThrow(/^invalid METRICS_PORT: /);
  });
});
