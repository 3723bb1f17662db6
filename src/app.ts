import type { AppDeps, RouteDeps } from './deps.js';
import { alwaysAvailable, type DatabaseAvailability } from './db/availability.js';
import { primaryReads } from './db/read-routing.js';
import { limitBodySize } from './http/body-guards.js';
import { IdentityIssuers } from './domain/identity/issuer-keys.js';
import { databaseGate } from './http/database-gate.js';
import { installFallbacks } from './http/error-handling.js';
import { requestContext } from './http/request-context.js';
import { requestMetrics } from './http/request-metrics.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { RateLimitOverrides } from './domain/rate-limits/override-cache.js';
import { errorFields } from './logger.js';
import { registerBearerSchemes } from './http/credentials.js';
import { createRouter, type Router } from './http/router.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi-document.js';
import { registerAdmin } from './routes/admin/index.js';
import { registerBrowserPage } from './routes/browser-page.js';
import { registerCodeApproval } from './routes/code-approval.js';
import { registerConsole } from './routes/console/index.js';
import { registerCodeCancel } from './routes/code-cancel.js';
import { registerCodeStatus } from './routes/code-status.js';
import { registerHealth } from './routes/health.js';
import { registerInstall } from './routes/install/index.js';
import { registerInstallCodes } from './routes/install-codes.js';
import { loadInstallerScript, registerInstallerScript } from './routes/installer-script.js';
import { registerLegacy } from './routes/legacy/index.js';
import { registerReference } from './routes/reference.js';
import { registerSigningKeys } from './routes/signing-keys.js';
import { ReceiptKeys } from './domain/tokens/receipt-keys.js';
import { keyedHashes } from './domain/tokens/keyed-hashes.js';
import { CheckinBatcher } from './domain/servers/checkins.js';

export interface App {
  app: Router;
  /** Built from the routes' schemas at its first read (GET /openapi.json, a test, the generator), then kept. */
  readonly document: OpenApiDocument;
  metrics: Metrics;
  /** The app's copy of the rate-limit overrides (tests invalidate it when they empty the database). */
  rateLimitOverrides: RateLimitOverrides;
  /** The app's record of the receipt keys (tests forget it when they empty the database). */
  receiptKeys: ReceiptKeys;
  /** The operator console on a listener of its own (CONSOLE_PORT), or undefined when it is under /admin here. */
  consoleApp: Router | undefined;
}

/** The whole HTTP app, complete and synchronous: every route is registered before the first request. */
export function createApp(appDeps: AppDeps): App {
  const app = createRouter();
  const metrics = appDeps.metrics ?? createMetrics();
  const rateLimitOverrides = new RateLimitOverrides(
    appDeps.db,
    appDeps.clock,
    (err) => appDeps.logger.warn('rate-limit overrides not refreshed', { ...errorFields(err) }),
    appDeps.config.rateLimitProfile.quotaFactor,
  );
  const receiptKeys = new ReceiptKeys(appDeps.db, appDeps.keys, appDeps.clock, appDeps.config.receiptVerifyDays);
  const reads = appDeps.reads ?? primaryReads(appDeps.db);
  const deps: RouteDeps = {
    ...appDeps,
    reads,
    rateLimitOverrides,
    receiptKeys,
    keyedHashes: keyedHashes(appDeps.config.keyEncryptionKey),
    checkins: new CheckinBatcher(appDeps.db),
    identityIssuers: appDeps.identityIssuers ?? new IdentityIssuers({ safety: appDeps.config.identityIssuerSafety }),
  };
  const availability = deps.availability ?? alwaysAvailable;
  useCommonMiddleware(app, deps, availability, metrics);

  registerHealth(app, { db: deps.db, availability, isDraining: deps.isDraining ?? (() => false) });
  registerBrowserPage(app, deps);
  registerInstallCodes(app, deps);
  registerCodeStatus(app, deps);
  registerCodeCancel(app, deps);
  registerCodeApproval(app, deps);
  registerInstall(app, deps);
  registerInstallerScript(app, loadInstallerScript());
  registerSigningKeys(app, deps.receiptKeys, deps.clock);
  registerBearerSchemes(app);
  registerLegacy(app, deps);
  registerAdmin(app, deps);
  const consoleApp = deps.config.console ? createConsoleApp(deps, availability, metrics) : undefined;
  if (!consoleApp) registerConsole(app, deps);

  // Not at start: turning every zod schema into JSON Schema took 55–60 ms of each start, for a document
  // most processes never serve. It depends on the configuration (the rate-limit profile's quotas), so it
  // is not made at build time either. Its routes are registered now; only the document waits.
  let document: OpenApiDocument | undefined;
  const documentOnce = () => (document ??= buildOpenApiDocument(app));
  registerReference(app, documentOnce);
  installFallbacks(app, deps.logger);
  return {
    app,
    get document() {
      return documentOnce();
    },
    metrics,
    rateLimitOverrides,
    receiptKeys,
    consoleApp,
  };
}

/** What runs before every route of a listener: the request's span, id and log line, its metrics, the body limit, the database gate. */
function useCommonMiddleware(app: Router, deps: RouteDeps, availability: DatabaseAvailability, metrics: Metrics): void {
  // First, so that everything after it, the request's log line included, runs inside its span.
  if (deps.tracing) app.use('*', deps.tracing.requestSpans);
  app.use('*', requestContext({ logger: deps.logger, trustProxy: deps.config.trustProxy, hashes: deps.keyedHashes }));
  app.use('*', requestMetrics(metrics));
  app.use('*', limitBodySize);
  app.use('*', databaseGate(availability));
}

/** The console alone, with what every answer of the main listener gets. */
function createConsoleApp(deps: RouteDeps, availability: DatabaseAvailability, metrics: Metrics): Router {
  const app = createRouter();
  useCommonMiddleware(app, deps, availability, metrics);
  registerConsole(app, deps);
  installFallbacks(app, deps.logger);
  return app;
}
