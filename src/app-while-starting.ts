import { serviceUnavailable } from './http/database-gate.js';
import { installFallbacks } from './http/error-handling.js';
import { requestContext } from './http/request-context.js';
import { createRouter, type Router } from './http/router.js';
import type { TrustProxy } from './domain/client-addresses.js';
import { UNKEYED_HASHES } from './domain/tokens/keyed-hashes.js';
import type { Logger } from './logger.js';
import { registerLiveness } from './routes/health.js';

/**
 * What answers from the moment the port is open until the database is reached and migrated (the
 * whole app needs its keys and a migrated database): liveness 200, everything else (readiness
 * included) 503 `service_unavailable` in the one envelope.
 */
export function createStartingApp(logger: Logger, trustProxy: TrustProxy): Router {
  const app = createRouter();
  // Nothing answered here is recorded or counted: no hash is made, so none needs the KEK.
  app.use('*', requestContext({ logger, trustProxy, hashes: UNKEYED_HASHES }));
  registerLiveness(app);
  app.all('*', () => {
    throw serviceUnavailable('The service is starting and has not reached its database yet. Try again shortly.');
  });
  installFallbacks(app, logger);
  return app;
}
