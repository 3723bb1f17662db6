import type { Duplex } from 'node:stream';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from './app.js';
import { systemClock } from './clock.js';
import { ConfigError } from './config-error.js';
import { loadConfig, type Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/client.js';
import { DataDirError, lockDataDir } from './db/data-dir-lock.js';
import { startPruning, type PruningSchedule } from './domain/pruning.js';
import { keyProtection } from './domain/key-protection.js';
import { fleetCounts } from './domain/admin/fleet-counts.js';
import { createWebhookWorker, startWebhookDelivery, type WebhookDelivery } from './domain/webhooks/delivery-loop.js';
import { keyStoreOptions, startKeyRefresh } from './domain/signing-key-store.js';
import { keyRingFromConfig } from './domain/signing-keys.js';
import { createLogger, errorFields } from './logger.js';
import { createMetrics } from './metrics/metrics.js';
import { createMetricsApp } from './metrics/metrics-app.js';
import { answerClientError } from './http/client-error-answer.js';
import type { Router } from './http/router.js';
import { createStartingApp } from './starting-app.js';
import { describeDatabase, prepareDatabase } from './startup.js';
import { loadTracingSettings } from './tracing/settings.js';
import { startTracing } from './tracing/start-tracing.js';

/** How long a stopping server keeps answering, each answer closing its connection, before it stops accepting. */
const SHUTDOWN_DRAIN_MS = 500;
/** Idle keep-alive connections close after this: sooner than a slow client's request timeout. */
const KEEP_ALIVE_TIMEOUT_MS = 5000;
/** At shutdown, the spans still queued are exported for at most this long. */
const TRACE_FLUSH_MS = 3000;

/** A start-up failure that is one line as it is (port in use, ...). */
class StartupError extends Error {}

type Fetch = Router['fetch'];

/**
 * Opens the port, or fails with one line. Slow clients are cut: request headers and body must arrive
 * within REQUEST_TIMEOUT_SECONDS, checked every second (answered 408 `request_timeout` and closed by
 * answerClientError).
 */
function listen(fetch: Fetch, config: Config): Promise<ServerType> {
  const timeoutMs = config.requestTimeoutSeconds * 1000;
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch,
        port: config.port,
        hostname: config.host,
        serverOptions: {
          requestTimeout: timeoutMs,
          headersTimeout: timeoutMs,
          keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
          connectionsCheckingInterval: 1000,
        },
      },
      () => resolve(server),
    );
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(new StartupError(`port ${config.port} is already in use`));
      else reject(new StartupError(`cannot listen on ${config.host}:${config.port} (${err.code ?? err.message})`));
    });
  });
}

/**
 * Process entry: the only module that reads the environment. Everything that can fail without the
 * database is checked first (configuration, SIGNING_KEYS, the DATA_DIR lock, the port), each failure
 * one line. Then the port answers at once (liveness 200, the rest 503) while the database is reached,
 * retried with backoff, and migrated; then the whole app takes over.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  // Signing keys required sealed and nothing to seal them with: refused here, one line, before anything opens.
  const protection = keyProtection(config);
  const tracingSettings = loadTracingSettings(process.env);
  // Off (no OTEL_* variable asks for it), the OpenTelemetry SDK is never loaded. Tracing's own log lines (an
  // export failing) are written outside any request, so its logger carries no span.
  const tracing = tracingSettings ? await startTracing(tracingSettings, createLogger(config.logLevel)) : undefined;
  const logger = createLogger(config.logLevel, undefined, tracing?.logFields);
  const started = performance.now();
  logger[protection.mode === 'clear' ? 'warn' : 'info']('signing key protection', { ...protection });
  if (config.rateLimitProfile.name !== 'default') {
    const { name, quotaFactor } = config.rateLimitProfile;
    logger.warn('rate limits scaled for development', {
      rate_limit_profile: name,
      quota_factor: quotaFactor,
      detail: `RATE_LIMIT_PROFILE=${name}: every rate-limit quota is multiplied by ${quotaFactor}, for trying the service locally; never use it in production`,
    });
  }
  const configuredKeys = config.signingKeys ? await keyRingFromConfig(config.signingKeys) : undefined;
  const lock = !config.databaseUrl && !config.dataDir.startsWith('memory://') ? lockDataDir(config.dataDir) : undefined;
  process.on('exit', () => lock?.release());

  let stopping = false;
  let handler: Fetch = createStartingApp(logger, config.trustProxy).fetch;
  // While stopping, every answer closes its connection, so that keep-alive clients stop reusing it
  // before the server closes the idle ones (a request racing that close would be reset).
  const fetch: Fetch = async (request, env, ctx) => {
    const response = await handler(request, env, ctx);
    if (stopping) response.headers.set('Connection', 'close');
    return response;
  };
  const server = await listen(fetch, config);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, logger));
  const address = server.address();
  logger.info('listening', {
    ...(typeof address === 'object' && address ? { address: address.address, port: address.port } : {}),
    startup_ms: Math.round(performance.now() - started),
  });

  let database: DatabaseHandle | undefined;
  let pruning: PruningSchedule | undefined;
  let webhooks: WebhookDelivery | undefined;
  let metricsServer: ServerType | undefined;
  let consoleServer: ServerType | undefined;
  let keyRefresh: { stop(): void } | undefined;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    // Drain: keep answering (with Connection: close) for a moment, then stop accepting, let the
    // accepted requests finish and close the database; give up after 10 s.
    const force = setTimeout(() => process.exit(1), 10_000).unref();
    setTimeout(() => {
      metricsServer?.close();
      consoleServer?.close();
      keyRefresh?.stop();
      server.close(async () => {
        await pruning?.stop();
        await webhooks?.stop();
        await database?.close();
        await tracing?.shutdown(TRACE_FLUSH_MS);
        clearTimeout(force);
        logger.info('stopped');
        process.exit(0);
      });
      if ('closeIdleConnections' in server) server.closeIdleConnections();
    }, SHUTDOWN_DRAIN_MS);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  const label = describeDatabase(config.databaseUrl, config.dataDir);
  database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onAvailabilityChange: (available, err) => {
      if (available) logger.info('database available again', { database: label });
      else
        logger.warn('database unavailable', {
          database: label,
          error: errorFields(err).error,
          code: errorFields(err).code,
        });
    },
    traceStatement: tracing?.statement,
  });
  const keyStore = keyStoreOptions(config, {
    clock: systemClock,
    warn: (message) => logger.warn(message),
    error: (message, fields) => logger.error(message, fields),
  });
  const keys = await prepareDatabase(database, {
    keys: configuredKeys,
    keyStore,
    clock: systemClock,
    logger,
    label,
    stopping: () => stopping,
  });
  if (!keys || stopping) return;

  const ready = database;
  const metrics = createMetrics({
    poolStats: () => ready.poolStats(),
    processMetrics: true,
    fleet: () => fleetCounts(ready.db, systemClock.now(), { deadAfterSeconds: config.serverDeadAfterSeconds }),
  });
  tracing?.registerMetrics(metrics.registry);
  const { app, consoleApp } = createApp({
    db: ready.db,
    availability: ready.availability,
    isDraining: () => stopping,
    clock: systemClock,
    config,
    logger,
    keys,
    metrics,
    tracing,
  });
  handler = app.fetch;
  // Keys kept in the database are reloaded every minute: a rotation by another instance or `slowdns keys rotate` reaches this one.
  keyRefresh = startKeyRefresh(keys, (message, err) => logger.warn(message, { ...errorFields(err) }));
  logger.info('ready', { database: ready.kind, startup_ms: Math.round(performance.now() - started) });
  // Prometheus metrics on their own port, never on the public one (docs/operators.md, "Metrics").
  metricsServer = config.metrics
    ? serve(
        { fetch: createMetricsApp(metrics).fetch, port: config.metrics.port, hostname: config.metrics.host },
        (info) => {
          logger.info('metrics listening', { address: info.address, port: info.port });
        },
      )
    : undefined;
  // The operator console on a listener of its own (CONSOLE_PORT), where the main one is public (docs/operators.md, "The console").
  consoleServer =
    consoleApp && config.console
      ? serve({ fetch: consoleApp.fetch, port: config.console.port, hostname: config.console.host }, (info) => {
          logger.info('console listening', { address: info.address, port: info.port });
        })
      : undefined;
  // Old rate-limit buckets, expired sessions, long-expired codes and old events: one instance at a time (advisory lock).
  pruning = startPruning(ready.db, systemClock, logger, { eventRetentionDays: config.eventRetentionDays });
  // Webhooks from the event trail, beside the server and never in a request: stopped on drain, like pruning.
  const worker = createWebhookWorker({
    db: ready.db,
    clock: systemClock,
    logger,
    safety: config.webhookSafety,
    keyEncryptionKey: config.keyEncryptionKey,
    onAttempt: (outcome) => metrics.webhookAttempt(outcome),
    onExpired: (count) => metrics.webhookExpired(count),
  });
  webhooks = startWebhookDelivery(worker, logger);
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
