import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '../errors.js';
import type { AppEnv } from './app-env.js';

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

/**
 * Refuses a body larger than `maxBytes` with 413 `payload_too_large` before it is read. A declared
 * `Content-Length` (what every client sends for a body it holds) and a GET or HEAD without one are
 * decided from the headers alone. Only a body of unknown length (chunked) is counted as it arrives,
 * by hono's bodyLimit: reaching for the body stream turns @hono/node-server's light request into a
 * full web Request with a stream around the socket, which costs more than the rest of a small request.
 */
export function bodySizeLimit(maxBytes: number): MiddlewareHandler<AppEnv> {
  const tooLarge = () => {
    // The rest of the body is never read: this connection cannot carry another request.
    throw new ApiError('payload_too_large', `The request body is larger than ${maxBytes / 1024} KiB.`, {
      Connection: 'close',
    });
  };
  const countWhileReading = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    const declared = c.req.header('content-length');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    if (declared !== undefined && !chunked) return Number.parseInt(declared, 10) > maxBytes ? tooLarge() : next();
    if (!chunked && (c.req.method === 'GET' || c.req.method === 'HEAD')) return next();
    return countWhileReading(c, next);
  };
}

export const limitBodySize = bodySizeLimit(MAX_BODY_BYTES);
