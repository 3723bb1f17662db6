import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '../errors.js';
import type { AppEnv } from './router.js';

/** Request bodies larger than this are refused with 413 before they are read. */
export const MAX_BODY_BYTES = 64 * 1024;

const jsonContentType = /^application\/(?:[a-z0-9.+-]+\+)?json\s*(?:;.*)?$/i;

/**
 * For routes whose body is optional: an empty body labelled JSON
 * (`curl -X POST -H 'Content-Type: application/json'`) reads as `{}` instead of failing to parse.
 * Route middleware, after any route body limit: reading the body here locks its stream.
 */
export const emptyJsonBodyAsObject: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (jsonContentType.test(c.req.header('content-type') ?? '') && (await c.req.text()).trim() === '') {
    // Hono caches the body as a promise (its type says otherwise); the validator then parses this `{}`.
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve('{}');
  }
  await next();
};

export const limitBodySize: MiddlewareHandler<AppEnv> = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    // The rest of the body is never read: this connection cannot carry another request.
    throw new ApiError('payload_too_large', `The request body is larger than ${MAX_BODY_BYTES / 1024} KiB.`, { Connection: 'close' });
  },
});
