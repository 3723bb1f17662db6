import { setFlagsFromString } from 'node:v8';
import { createApp } from './app.js';
import { createStartingApp } from './app-while-starting.js';
import { systemClock } from './clock.js';
import { ConfigError } from './config-error.js';
import { loadConfig, type Config } from './config.js';
import { openDatabase } from './db/client.js';
import { DataDirError, lockDataDir } from './db/data-dir-lock.js';
import { describeDatabaseUrl, parseDatabaseUrl } from './db/database-url.js';
import { openReadReplica, primaryWalPosition } from './db/read-replica.js';
import { primaryReads, replicaReads } from './db/read-routing.js';
import { stateCounts } from './domain/admin-lists/state-counts.js';
import { stateCountsReading, startStateCountsReading } from './domain/admin-lists/state-counts-reading.js';
import { keyProtection, type KeyProtection } from './domain/tokens/key-protection.js';
import { startPruning } from './domain/upkeep/pruning.js';
import { keyStoreOptions, startKeyRefresh } from './domain/tokens/signing-key-store.js';
import { keyRingFromConfig } from './domain/tokens/signing-keys.js';
import { createWebhookWorker, startWebhookDelivery } from './domain/webhooks/delivery-loop.js';
import { startNoticePass } from './domain/notices/notice-pass.js';
import { createLogger, errorFields, type Logger } from './logger.js';
import { createMetrics } from './metrics/metrics.js';
import { createMetricsApp } from './metrics/metrics-app.js';
import { describeDatabase, prepareDatabase } from './prepare-database.js';
import { openPublicPort, openSidePort, StartupError } from './public-port.js';
import { loadTracingSettings } from './tracing/settings.js';
import { startTracing } from './tracing/start-tracing.js';

/** How long a stopping server keeps answering, each answer closing its connection, before it stops accepting. */
const SHUTDOWN_DRAIN_MS = 500;
/** A shutdown that has not finished after this exits anyway (status 1). */
const SHUTDOWN_LIMIT_MS = 10_000;
/** At shutdown, the spans still queued are exported for at most this long. */
const TRACE_FLUSH_MS = 3000;

/**
 * How far V8 lets its old generation grow past what the last full collection kept, before the next one:
 * 1.3 times, where V8 chooses up to 4 times on a machine with memory to spare. An NDJSON export of a
 * million rows moves about 1 KB a row of short-lived driver rows into the old generation (they are
 * garbage by then: a heap snapshot mid-export holds no more than at idle), so at 4 times the heap
 * stood at about 80 MB above what survives (+97 MiB of RSS) before each full collection; at 1.3 times,
 * about 25 MB. It is no limit: the heap may still grow as large as V8 allows, only with full collections
 * more often when it does (measured: 19 instead of 4 over 174,000 exported rows, V8's incremental and
 * concurrent marking, the CPU per row within the noise). docs/measurements.md.
 */
const HEAP_GROWING_PERCENT = 30;

/** What a started part leaves behind: how to stop it. */
type Stop = () => unknown;

/** The parts running, in the order they started. Shutdown stops them in reverse: each before what it uses. */
class RunningParts {
  readonly #stops: Stop[] = [];

  add(stop: Stop): void {
    this.#stops.push(stop);
  }

  /** A part added while stopping (start-up racing a signal) is stopped too. */
  async stopAll(): Promise<void> {
    for (let stop = this.#stops.pop(); stop; stop = this.#stops.pop()) await stop();
  }
}

/**
 * Process entry: the only module that reads the environment. Everything that can fail without the
 * database is checked first (configuration, SIGNING_KEYS, the DATA_DIR lock, the port), each failure
 * one line. Then the port answers at once (liveness 200, the rest 503) while the database is reached,
 * retried with backoff, and migrated; then the whole app takes over.
 *
 * The service is a list of parts, each started here in turn and leaving its stop behind: tracing, the
 * public port, the database, the key refresh, the metrics and console listeners, pruning, webhook
 * delivery, and last the whole app on the public port. On SIGTERM or SIGINT the port drains for a moment
 * (every answer closing its connection), then the parts stop in reverse order: the app first (no new
 * request; the accepted ones answered), the database and tracing last.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  // Signing keys required sealed and nothing to seal them with: refused here, one line, before anything opens.
  const protection = keyProtection(config);
  const tracingSettings = loadTracingSettings(process.env);
  const parts = new RunningParts();

  // Off (no OTEL_* variable asks for it), the OpenTelemetry SDK is never loaded. Tracing's own log lines (an
  // export failing) are written outside any request, so its logger carries no span.
  const tracing = tracingSettings ? await startTracing(tracingSettings, createLogger(config.logLevel)) : undefined;
  if (tracing) parts.add(() => tracing.shutdown(TRACE_FLUSH_MS));
  const logger = createLogger(config.logLevel, undefined, tracing?.logFields);
  const started = performance.now();
  logSettingsToKnow(logger, config, protection);
  const configuredKeys = config.signingKeys ? await keyRingFromConfig(config.signingKeys) : undefined;
  // Another process took the folder over (this one stalled past the lease): stop at once, writing nothing more.
  const onLost = (reason: string) => {
    logger.error('DATA_DIR lock lost', { reason });
    process.exit(1);
  };
  const lock =
    !config.databaseUrl && !config.dataDir.startsWith('memory://')
      ? lockDataDir(config.dataDir, { onLost })
      : undefined;
  process.on('exit', () => lock?.release());

  const port = await openPublicPort(createStartingApp(logger, config.trustProxy).fetch, config, logger);
  parts.add(() => port.close());
  logger.info('listening', {
    ...port.address,
    startup_ms: Math.round(performance.now() - started),
  });
  const shutdown = async (signal: string) => {
    if (port.draining) return;
    port.drain();
    logger.info('shutting down', { signal });
    const force = setTimeout(() => process.exit(1), SHUTDOWN_LIMIT_MS).unref();
    await new Promise((resolve) => setTimeout(resolve, SHUTDOWN_DRAIN_MS));
    await parts.stopAll();
    clearTimeout(force);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  const label = describeDatabase(config.databaseUrl, config.dataDir);
  let primaryChanges = 0;
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onAvailabilityChange: (available, err) => {
      if (available) logger.info('database available again', { database: label });
      else {
        const { error, code } = errorFields(err);
        logger.warn('database unavailable', { database: label, error, code });
      }
    },
    traceStatement: tracing?.statement,
    onPrimaryChange: ({ from, to }) => {
      primaryChanges++;
      logger.warn('database primary changed', { database: label, from, to });
    },
  });
  parts.add(() => database.close());
  const keys = await prepareDatabase(database, {
    keys: configuredKeys,
    keyStore: keyStoreOptions(config, {
      clock: systemClock,
      warn: (message) => logger.warn(message),
      error: (message, fields) => logger.error(message, fields),
    }),
    clock: systemClock,
    logger,
    label,
    stopping: () => port.draining,
  });
  if (!keys || port.draining) return;

  // The operators' reads that may be a little behind, on DATABASE_READ_URL's replica while it keeps up (DESIGN §21).
  const replicaSettings = config.readReplica;
  const replica = replicaSettings
    ? await openReadReplica(replicaSettings.url, {
        maxLagSeconds: replicaSettings.maxLagSeconds,
        primaryPosition: () => primaryWalPosition(database.db),
        traceStatement: tracing?.statement,
        onChange: (usable, reason) => {
          const replicaLabel = describeDatabaseUrl(parseDatabaseUrl(replicaSettings.url, { for: 'reads' }));
          if (usable) logger.info('reads on the replica', { replica: replicaLabel });
          else logger.warn('reads on the primary: the replica is not usable', { replica: replicaLabel, reason });
        },
      })
    : undefined;
  if (replica) parts.add(() => replica.close());
  const reads = replica
    ? replicaReads({ primary: database.db, replica, now: () => systemClock.now().getTime() })
    : primaryReads(database.db);
  const counts = stateCountsReading(
    () =>
      reads.read((reader) =>
        stateCounts(reader, systemClock.now(), { deadAfterSeconds: config.serverDeadAfterSeconds }),
      ),
    (err) => logger.warn('fleet not counted', { ...errorFields(err) }),
  );
  parts.add((await startStateCountsReading(counts)).stop);
  const metrics = createMetrics({
    poolStats: () => database.poolStats(),
    processMetrics: true,
    databasePrimaryChanges: () => primaryChanges,
    counts,
    ...(replica ? { replicaLagSeconds: () => reads.replicaLagSeconds() } : {}),
  });
  tracing?.registerMetrics(metrics.registry);
  const { app, consoleApp } = createApp({
    db: database.db,
    reads,
    counts,
    availability: database.availability,
    isDraining: () => port.draining,
    clock: systemClock,
    config,
    logger,
    keys,
    metrics,
    tracing,
  });
  // Keys kept in the database are reloaded every minute: a rotation by another instance or `slowdns keys rotate` reaches this one.
  parts.add(startKeyRefresh(keys, (message, err) => logger.warn(message, { ...errorFields(err) })).stop);
  // Prometheus metrics on their own port, never on the public one (docs/running.md, "Metrics").
  if (config.metrics) parts.add(openSidePort('metrics', createMetricsApp(metrics).fetch, config.metrics, logger));
  // The operator console on a listener of its own (CONSOLE_PORT), where the main one is public (docs/operators.md, "The console").
  if (consoleApp && config.console) parts.add(openSidePort('console', consoleApp.fetch, config.console, logger));
  // Old rate-limit buckets, expired sessions, long-expired codes and old events: one instance at a time (advisory lock).
  parts.add(startPruning(database.db, systemClock, logger, { eventRetentionDays: config.eventRetentionDays }).stop);
  // Servers gone quiet and back, codes and tokens about to expire (DESIGN §28): every instance, each event once.
  parts.add(
    startNoticePass(
      {
        db: database.db,
        clock: systemClock,
        logger,
        onWritten: (type, count) => metrics.transition(type, 'service', count),
      },
      { thresholds: { deadAfterSeconds: config.serverDeadAfterSeconds } },
    ).stop,
  );
  // Webhooks from the event trail, beside the server and never in a request: stopped on drain, like pruning.
  const worker = createWebhookWorker({
    db: database.db,
    clock: systemClock,
    logger,
    safety: config.webhookSafety,
    ...config.webhookDelivery,
    keyEncryptionKey: config.keyEncryptionKey,
    consolePublicUrl: config.consolePublicUrl,
    onAttempt: (outcome) => metrics.webhookAttempt(outcome),
    onExpired: (count) => metrics.webhookExpired(count),
  });
  parts.add(startWebhookDelivery(worker, logger).stop);
  // Set here, not at the top of main(): while the service starts (the embedded database above all), the heap grows
  // from a few MB to its working size, and at 1.3 times V8 collected the old generation three times on the way
  // instead of once.
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  // Last, the whole app takes the port; stopped first: no new request, the accepted ones answered.
  port.answerWith(app.fetch);
  parts.add(() => port.close());
  logger.info('ready', { database: database.kind, startup_ms: Math.round(performance.now() - started) });
}

/** Settings an operator must know they chose, said at start: how the signing keys are kept, a development profile. */
function logSettingsToKnow(logger: Logger, config: Config, protection: KeyProtection): void {
  logger[protection.mode === 'clear' ? 'warn' : 'info']('signing key protection', { ...protection });
  if (config.rateLimitProfile.name !== 'default') {
    const { name, quotaFactor } = config.rateLimitProfile;
    logger.warn('rate limits scaled for development', {
      rate_limit_profile: name,
      quota_factor: quotaFactor,
      detail: `RATE_LIMIT_PROFILE=${name}: every rate-limit quota is multiplied by ${quotaFactor}, for trying the service locally; never use it in production`,
    });
  }
}

main().catch((err: unknown) => {
  // A bad setting, a folder in use, a busy port: one clear line. Anything else says it failed to start.
  if (err instanceof ConfigError || err instanceof DataDirError || err instanceof StartupError) {
    process.stderr.write(`slowdns: ${err.message}\n`);
    process.exit(1);
  }
  // errorFields: a failed query (a migration, the first signing key's insert) must not print its parameters.
  const { error, code } = errorFields(err);
  process.stderr.write(`slowdns: failed to start: ${error}${code ? ` (${code})` : ''}\n`);
  process.exit(1);
});
