import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { limitBodySize } from './http/body-guards.js';
import { installFallbacks } from './http/error-handling.js';
import { requestContext } from './http/request-context.js';
import { createRouter, type Router } from './http/router.js';
import type { KeyRing } from './domain/signing-keys.js';
import type { Logger } from './logger.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi-document.js';
import { registerBrowserPage } from './routes/browser-page.js';
import { registerHealth } from './routes/health.js';
import { registerInstall } from './routes/install/index.js';
import { registerInstallCodes } from './routes/install-codes.js';
import { registerLegacy } from './routes/legacy/index.js';
import { registerReference } from './routes/reference.js';
import { registerSigningKeys } from './routes/signing-keys.js';

export interface AppDeps {
  db: Database;
  clock: Clock;
  config: Config;
  logger: Logger;
  keys: KeyRing;
}

export interface App {
  app: Router;
  document: OpenApiDocument;
}

/** The whole HTTP app, complete and synchronous: every route is registered before the first request. */
export function createApp(deps: AppDeps): App {
  const app = createRouter();
  app.use('*', requestContext(deps.logger, deps.config.trustProxy));
  app.use('*', limitBodySize);

  registerHealth(app, deps.db);
  registerBrowserPage(app, deps);
  registerInstallCodes(app, deps);
  registerInstall(app, deps);
  registerSigningKeys(app, deps.keys);
  registerLegacy(app, deps);

  let document: OpenApiDocument | undefined;
  registerReference(app, () => document);
  document = buildOpenApiDocument(app);
  installFallbacks(app, deps.logger);
  return { app, document };
}
