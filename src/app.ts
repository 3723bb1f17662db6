import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { limitBodySize, requireJsonBody } from './http/body-guards.js';
import { installFallbacks } from './http/error-handling.js';
import { requestContext } from './http/request-context.js';
import { createRouter, type Router } from './http/router.js';
import type { Logger } from './logger.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi-document.js';
import { registerHealth } from './routes/health.js';
import { registerReference } from './routes/reference.js';

export interface AppDeps {
  db: Database;
  clock: Clock;
  config: Config;
  logger: Logger;
}

export interface App {
  app: Router;
  document: OpenApiDocument;
}

/** The whole HTTP app, complete and synchronous: every route is registered before the first request. */
export function createApp(deps: AppDeps): App {
  const app = createRouter();
  app.use('*', requestContext(deps.logger, deps.config.trustProxy));
  app.use('*', limitBodySize, requireJsonBody);

  registerHealth(app, deps.db);

  let document: OpenApiDocument | undefined;
  registerReference(app, () => document);
  document = buildOpenApiDocument(app);
  installFallbacks(app, deps.logger);
  return { app, document };
}
