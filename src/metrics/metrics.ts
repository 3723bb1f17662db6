import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PoolStats } from '../db/database.js';
import { LIVE_INSTALL_CODE_STATUSES, SERVER_HEALTHS, type StateCounts } from '../domain/admin-lists/state-counts.js';
import type { StateCountsReading } from '../domain/admin-lists/state-counts-reading.js';
import { EVENT_TYPES, type EventActor, type EventType } from '../domain/events/event-trail.js';

/**
 * The lifecycle transitions counted: the event types of the event trail (`<object>.<verb>`), one list.
 * Counted once a change is made, never for an idempotent repeat or a refusal.
 */
const TRANSITIONS = EVENT_TYPES;

type Transition = EventType;

/**
 * Who made a transition, as the event trail names it: the installer's own steps, a server's agent, the
 * browser that issued the code (issue, cancel), or an operator (admin release and revokes, the operator
 * revoke of /revoke). The `actor` label tells an operator's and a browser's actions from the lifecycle.
 */
type TransitionActor = EventActor;

/** Who can make each transition: these series start at 0, so a rate() or increase() sees the first one. */
const TRANSITION_ACTORS: Record<Transition, readonly TransitionActor[]> = {
  'install_code.issued': ['browser', 'operator'],
  'install_code.activated': ['installer'],
  'install_code.restored': ['installer', 'operator'],
  'install_code.consumed': ['installer'],
  'install_code.revoked': ['operator', 'browser'],
  'install_code.approved': ['browser', 'operator'],
  'install_code.denied': ['browser', 'operator'],
  'install_code.exhausted': ['installer'],
  'install_code.approval_requested': ['installer'],
  'install_code.expiry_warned': ['service'],
  'install_code.machine_proof_refused': ['installer'],
  'install_code.identity_refused': ['installer'],
  'activation.created': ['installer'],
  'activation.confirmed': ['installer'],
  'activation.released': ['installer', 'operator', 'browser'],
  'activation.duplicate_detected': ['installer'],
  'server.registered': ['installer'],
  'server.agent_token_reissued': ['installer'],
  'server.revoked': ['agent', 'installer', 'operator', 'browser'],
  'server.went_stale': ['service'],
  'server.went_dead': ['service'],
  'server.recovered': ['service'],
  'rate_limit_override.created': ['operator'],
  'rate_limit_override.removed': ['operator'],
  'webhook_endpoint.created': ['operator'],
  'webhook_endpoint.paused': ['operator'],
  'webhook_endpoint.resumed': ['operator'],
  'webhook_endpoint.secret_rotated': ['operator'],
  'webhook_endpoint.removed': ['operator'],
  'webhook_endpoint.disabled': ['service'],
  'webhook_delivery.replayed': ['operator'],
  'operator_token.created': ['operator'],
  'operator_token.revoked': ['operator'],
  'operator_token.expiry_warned': ['service'],
};

export interface MetricsOptions {
  /** Reads the database pool at each scrape; left out, no pool gauges are published. */
  poolStats?: () => Promise<PoolStats>;
  /** Node's process metrics (CPU, memory, event loop): on for the server, off in tests that build many apps. */
  processMetrics?: boolean;
  /** The fleet's counts as the periodic pass last read them (state-counts-reading.ts: servers by health, live codes, activations awaiting confirm, webhook backlog); left out, those gauges are not published. */
  counts?: StateCountsReading;
  /** The read replica's replay lag (DATABASE_READ_URL); left out, the gauge is not published. */
  replicaLagSeconds?: () => number | undefined;
  /** How many times the host that accepts writes changed since the start (DATABASE_URL with several hosts). */
  databasePrimaryChanges?: () => number;
}

/** What a webhook attempt came to: delivered, failed and to be retried, or failed for good (the schedule done). */
const WEBHOOK_OUTCOMES = ['delivered', 'retrying', 'failed'] as const;
type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];

export interface Metrics {
  registry: Registry;
  observeRequest(labels: { method: string; route: string; status: number }, seconds: number): void;
  /** `count` transitions of one type (a request's events one by one; the notice pass's by the batch). */
  transition(type: Transition, actor: TransitionActor, count?: number): void;
  refusal(policy: string): void;
  databaseError(kind: 'unavailable' | 'query'): void;
  webhookAttempt(outcome: WebhookOutcome): void;
  /** Undelivered webhook messages pruned after the retention. */
  webhookExpired(count: number): void;
}

/** One reading per scrape, shared by the gauges that show it; a reading that fails leaves them unset. */
function perScrape<T>(read: () => Promise<T>): () => Promise<T | undefined> {
  let latest: Promise<T | undefined> | undefined;
  return () =>
    (latest ??= read()
      .catch(() => undefined)
      .finally(() => setTimeout(() => (latest = undefined), 0)));
}

/** One registry per app: tests build several apps in one process, and each must count only its own. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.processMetrics) collectDefaultMetrics({ register: registry });

  /**
   * Each method, status and route pattern's answers, counted in plain numbers that prom-client reads at the
   * scrape, and its duration series, looked up once. prom-client's `inc()` checks and joins the labels on every
   * call, a child series' too (docs/measurements.md, "Counters in plain numbers"); its histogram has
   * no way to be handed counts, so its `observe()` stays. A reset of the registry (`resetMetrics()`, which the
   * service never calls) does not reach these counts: the next scrape reads them again. Bounded as the series
   * are: routes are patterns, and Node's parser knows a fixed set of methods.
   */
  const requestSeries = new Map<
    string,
    { labels: { method: string; route: string; status: string }; count: number; duration: Histogram.Internal<string> }
  >();
  new Counter({
    name: 'slowdns_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern (never the raw path) and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
    collect() {
      this.reset();
      for (const { labels, count } of requestSeries.values()) this.inc(labels, count);
    },
  });
  const duration = new Histogram({
    name: 'slowdns_http_request_duration_seconds',
    help: 'Time from the request reaching the app to its answer, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  /** Each type and actor's count, read by prom-client at the scrape (as the requests', above). */
  const transitionCounts = new Map<string, { labels: { type: Transition; actor: TransitionActor }; count: number }>();
  const countTransition = (type: Transition, actor: TransitionActor, by: number) => {
    const key = `${type} ${actor}`;
    const counted = transitionCounts.get(key);
    if (counted) counted.count += by;
    else transitionCounts.set(key, { labels: { type, actor }, count: by });
  };
  for (const type of TRANSITIONS) for (const actor of TRANSITION_ACTORS[type]) countTransition(type, actor, 0);
  new Counter({
    name: 'slowdns_lifecycle_transitions_total',
    help: 'Changes of install codes, activations, servers and rate-limit overrides, by type (install_code.issued, activation.confirmed, ...) and by who made them (installer, agent, browser, operator, service).',
    labelNames: ['type', 'actor'] as const,
    registers,
    collect() {
      this.reset();
      for (const { labels, count } of transitionCounts.values()) this.inc(labels, count);
    },
  });
  const refusals = new Counter({
    name: 'slowdns_rate_limit_refusals_total',
    help: 'Requests refused with 429 rate_limit_exceeded, by the policy that refused them.',
    labelNames: ['policy'] as const,
    registers,
  });
  const databaseErrors = new Counter({
    name: 'slowdns_database_errors_total',
    help: 'Requests failed by the database: unavailable (answered 503) or query (an unexpected database error, answered 500).',
    labelNames: ['kind'] as const,
    registers,
  });
  for (const kind of ['unavailable', 'query']) databaseErrors.inc({ kind }, 0);
  const { databasePrimaryChanges } = options;
  new Counter({
    name: 'slowdns_database_primary_changes_total',
    help: 'Times the database host that accepts writes changed (a failover or switchover followed; DATABASE_URL with several hosts).',
    registers,
    collect() {
      this.reset();
      this.inc(databasePrimaryChanges?.() ?? 0);
    },
  });

  const webhookAttempts = new Counter({
    name: 'slowdns_webhook_deliveries_total',
    help: 'Webhook attempts by outcome: delivered (2xx within 10 s), retrying (failed, tried again later), failed (failed, the retry schedule done).',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const outcome of WEBHOOK_OUTCOMES) webhookAttempts.inc({ outcome }, 0);
  const webhookExpired = new Counter({
    name: 'slowdns_webhook_deliveries_expired_total',
    help: 'Undelivered webhook messages pruned after 14 days (pending on a paused or disabled endpoint, or failed).',
    registers,
  });

  const { counts: reading } = options;
  if (reading) {
    /** What each fleet gauge's help ends with: where its value comes from, and how old it may be. */
    const FRESHNESS = ' Counted by the periodic pass every 15 s, not at the scrape: at most 30 s old.';
    const fleetGauge = <L extends string>(
      name: string,
      help: string,
      labelNames: readonly L[],
      show: (gauge: Gauge<L>, counts: StateCounts) => void,
    ) =>
      new Gauge({
        name,
        help: help + FRESHNESS,
        labelNames,
        registers,
        collect() {
          const counts = reading.latest();
          if (counts) show(this, counts);
        },
      });
    fleetGauge(
      'slowdns_servers',
      'Registered servers by health (active, stale, dead, revoked), as the admin list derives it from check-ins (every instance, from the database).',
      ['health'],
      (gauge, counts) => {
        for (const health of SERVER_HEALTHS) gauge.set({ health }, counts.servers[health]);
      },
    );
    fleetGauge(
      'slowdns_install_codes',
      'Unexpired install codes by status (issued, activated, consumed, revoked).',
      ['status'],
      (gauge, counts) => {
        for (const status of LIVE_INSTALL_CODE_STATUSES) gauge.set({ status }, counts.installCodes[status]);
      },
    );
    fleetGauge(
      'slowdns_activations_awaiting_confirm',
      'Activations neither confirmed nor released whose install token has not expired.',
      [],
      (gauge, counts) => gauge.set(counts.activationsAwaitingConfirm),
    );
    fleetGauge(
      'slowdns_webhook_deliveries_pending',
      'Webhook messages not yet delivered and still to be tried (every instance, from the database).',
      [],
      (gauge, counts) => gauge.set(counts.webhookDeliveriesPending),
    );
    fleetGauge(
      'slowdns_webhook_oldest_pending_age_seconds',
      'Age of the oldest pending webhook message (0 when none is pending).',
      [],
      (gauge, counts) => gauge.set(counts.oldestPendingWebhookAgeSeconds),
    );
  }

  const { replicaLagSeconds } = options;
  if (replicaLagSeconds)
    new Gauge({
      name: 'slowdns_database_replica_lag_seconds',
      help: "The read replica's replay lag behind the primary at its last probe (every second; DATABASE_READ_URL); NaN while it does not answer. Past DATABASE_READ_MAX_LAG_SECONDS, or while it does not answer, reads go to the primary.",
      registers,
      collect() {
        this.set(replicaLagSeconds() ?? Number.NaN);
      },
    });

  const { poolStats } = options;
  if (poolStats) {
    const read = perScrape(poolStats);
    new Gauge({
      name: 'slowdns_database_pool_max',
      help: 'Connections the pool may open (1 for the embedded PGlite).',
      registers,
      async collect() {
        const stats = await read();
        if (stats) this.set(stats.max);
      },
    });
    new Gauge({
      name: 'slowdns_database_pool_connections',
      help: "This instance's open database connections by state, as PostgreSQL reports them (pg_stat_activity); the scrape's own query is one of the active ones.",
      labelNames: ['state'] as const,
      registers,
      async collect() {
        const stats = await read();
        this.reset();
        if (stats) for (const [state, count] of Object.entries(stats.connections)) this.set({ state }, count);
      },
    });
  }

  return {
    registry,
    observeRequest({ method, route, status }, seconds) {
      const key = `${method} ${status} ${route}`;
      let series = requestSeries.get(key);
      if (!series) {
        const labels = { method, route, status: String(status) };
        series = { labels, count: 0, duration: duration.labels(labels) };
        requestSeries.set(key, series);
      }
      series.count++;
      series.duration.observe(seconds);
    },
    transition: (type, actor, count = 1) => countTransition(type, actor, count),
    refusal: (policy) => refusals.inc({ policy }),
    databaseError: (kind) => databaseErrors.inc({ kind }),
    webhookAttempt: (outcome) => webhookAttempts.inc({ outcome }),
    webhookExpired: (count) => webhookExpired.inc(count),
  };
}
