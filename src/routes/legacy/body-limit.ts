import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '../../errors.js';
import type { AppEnv } from '../../http/router.js';

/** Agent bodies are small; a tighter limit than the app's 64 KiB keeps a broken agent from filling rows. */
export const LEGACY_MAX_BODY_BYTES = 8 * 1024;

/** Route middleware, before anything reads the body: hono's bodyLimit needs the unread stream. */
export const legacyBodyLimit: MiddlewareHandler<AppEnv> = bodyLimit({
  maxSize: LEGACY_MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError('payload_too_large', `The request body is larger than ${LEGACY_MAX_BODY_BYTES / 1024} KiB.`, { Connection: 'close' });
  },
});
