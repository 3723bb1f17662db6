import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { isDatabaseError, isDatabaseUnavailable } from '../db/database-errors.js';
import { ApiError } from '../errors.js';
import { errorFields, type Logger } from '../logger.js';
import { serviceUnavailable } from './database-gate.js';
import { envelopeOf } from '../schemas/envelope.js';
import type { AppEnv } from './app-env.js';
import type { Router } from './router.js';

/** Any error → the one envelope. ApiErrors keep their code; nothing internal ever reaches the body. */
function toErrorResponse(err: unknown, c: Context<AppEnv>, logger: Logger): Response {
  const apiError = classify(err, c, logger);
  for (const [name, value] of Object.entries(apiError.headers)) c.header(name, value);
  return c.json(envelopeOf(apiError.code, apiError.message), apiError.status);
}

function classify(err: unknown, c: Context<AppEnv>, logger: Logger): ApiError {
  if (err instanceof ApiError) return err;
  // Hono's validators speak HTTPException: 400 for a body that is not JSON, 415 (zod-openapi's media
  // type gate) for a body that is not `application/json`. Anything else from them would be a bug.
  if (err instanceof HTTPException && err.status === 400)
    return new ApiError('validation_failed', 'The request body is not valid JSON.');
  if (err instanceof HTTPException && err.status === 415) return new ApiError('unsupported_media_type');
  if (isDatabaseUnavailable(err)) {
    c.get('metrics')?.databaseError('unavailable');
    const { error, code } = errorFields(err);
    logger.error('database unavailable', { request_id: c.get('requestId'), error, code });
    return serviceUnavailable();
  }
  if (isDatabaseError(err)) c.get('metrics')?.databaseError('query');
  // errorFields leaves out a failed query's parameters: they can be tokens, hashes or keys.
  logger.error('unhandled error', { request_id: c.get('requestId'), ...errorFields(err) });
  return new ApiError('internal_error');
}

/** Unknown path → 404 `not_found`; known path, other method → 405 `method_not_allowed` with `Allow`. */
export function installFallbacks(app: Router, logger: Logger): void {
  let routeTable: { pattern: RegExp; methods: Set<string> }[] | undefined;
  const table = () =>
    (routeTable ??= Object.values(
      app.routes
        .filter((r) => r.method !== 'ALL')
        .reduce<Record<string, { pattern: RegExp; methods: Set<string> }>>((acc, r) => {
          const entry = (acc[r.path] ??= {
            pattern: new RegExp(`^${r.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\/:[^/]+/g, '/[^/]+')}$`),
            methods: new Set(),
          });
          entry.methods.add(r.method);
          if (r.method === 'GET') entry.methods.add('HEAD');
          return acc;
        }, {}),
    ));
  app.notFound((c) => {
    const match = table().find((r) => r.pattern.test(c.req.path));
    if (match) {
      c.header('Allow', [...match.methods].join(', '));
      return toErrorResponse(new ApiError('method_not_allowed'), c, logger);
    }
    return toErrorResponse(new ApiError('not_found'), c, logger);
  });
  app.onError((err, c) => toErrorResponse(err, c, logger));
}
