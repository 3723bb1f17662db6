import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import { systemClock } from './clock.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { migrateDatabase } from './db/migrate.js';
import { startPruning } from './domain/pruning.js';
import { loadKeyRing } from './domain/signing-keys.js';
import { createLogger, errorFields } from './logger.js';

/** How long a stopping server keeps answering, each answer closing its connection, before it stops accepting. */
const SHUTDOWN_DRAIN_MS = 500;

/** Process entry: the only module that reads the environment. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  const started = performance.now();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrateDatabase(database);
  const keys = await loadKeyRing(database, config.signingKeys, systemClock.now());

  const { app } = createApp({ db: database.db, clock: systemClock, config, logger, keys });
  let stopping = false;
  // While stopping, every answer closes its connection, so that keep-alive clients stop reusing it
  // before the server closes the idle ones (a request racing that close would be reset).
  const fetch: typeof app.fetch = async (request, env, ctx) => {
    const response = await app.fetch(request, env, ctx);
    if (stopping) response.headers.set('Connection', 'close');
    return response;
  };
  const server = serve({ fetch, port: config.port, hostname: config.host }, (info) => {
    logger.info('listening', {
      address: info.address,
      port: info.port,
      database: database.kind,
      startup_ms: Math.round(performance.now() - started),
    });
  });
  // Old rate-limit buckets, expired sessions and long-expired codes: one instance at a time (advisory lock).
  const pruning = startPruning(database, systemClock, logger);

  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    // Drain: keep answering (with Connection: close) for a moment, then stop accepting, let the
    // accepted requests finish and close the database; give up after 10 s.
    const force = setTimeout(() => process.exit(1), 10_000).unref();
    setTimeout(() => {
      server.close(async () => {
        await pruning.stop();
        await database.close();
        clearTimeout(force);
        logger.info('stopped');
        process.exit(0);
      });
      if ('closeIdleConnections' in server) server.closeIdleConnections();
    }, SHUTDOWN_DRAIN_MS);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  // A bad setting is one clear line naming the variable; anything else says it failed to start.
  if (err instanceof ConfigError) {
    process.stderr.write(`slowdns: ${err.message}\n`);
    process.exit(1);
  }
  // errorFields: a failed query (a migration, the first signing key's insert) must not print its parameters.
  const { error, code } = errorFields(err);
  process.stderr.write(`slowdns: failed to start: ${error}${code ? ` (${code})` : ''}\n`);
  process.exit(1);
});
