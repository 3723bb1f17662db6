import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '../../errors.js';
import type { AppEnv } from '../../http/router.js';

/** Agent bodies are small; a tighter limit than the app's 64 KiB keeps a broken agent from filling rows. */
export const LEGACY_MAX_BODY_BYTES = 8 * 1024;

const tooLarge = (): never => {
  throw new ApiError('payload_too_large', `The request body is larger than ${LEGACY_MAX_BODY_BYTES / 1024} KiB.`);
};

const limitStream = bodyLimit({ maxSize: LEGACY_MAX_BODY_BYTES, onError: tooLarge });

/**
 * The app-wide JSON guard reads a body sent without Content-Length (chunked) to see whether it is
 * empty; hono's bodyLimit would then find the stream locked (a 500). Such a body is measured from
 * the text the guard already read, which Hono keeps.
 */
export const legacyBodyLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!c.req.raw.bodyUsed) return limitStream(c, next);
  if (Buffer.byteLength(await c.req.text()) > LEGACY_MAX_BODY_BYTES) tooLarge();
  await next();
};
