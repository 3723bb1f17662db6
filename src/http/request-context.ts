import type { MiddlewareHandler } from 'hono';
import { clientKey, type TrustProxy } from '../domain/client-addresses.js';
import type { KeyedHashes } from '../domain/tokens/keyed-hashes.js';
import { resolveClientAddress } from './client-address.js';
import type { Logger } from '../logger.js';
import type { AppEnv } from './app-env.js';
import { type NodeBindings, setAnswerHeader } from './answer-headers.js';

const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request id (taken from `X-Request-Id` when sane), client address and its rate-limit key, the app's
 * keyed hashes (what its events hash the key by), baseline headers and one JSON log line per request.
 * The log names the route pattern, never the raw URL, cookie, body or token.
 */
export function requestContext({
  logger,
  trustProxy,
  hashes,
}: {
  logger: Logger;
  trustProxy: TrustProxy;
  hashes: KeyedHashes;
}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const incomingId = c.req.header('x-request-id');
    const requestId = incomingId && saneRequestId.test(incomingId) ? incomingId : crypto.randomUUID();
    c.set('requestId', requestId);
    // Set before the answer is made, onto every answer (the tests' response validator requires both on each):
    // a header set on a finished answer would copy the whole Response.
    setAnswerHeader(c, 'X-Content-Type-Options', 'nosniff');
    setAnswerHeader(c, 'X-Request-Id', requestId);
    // Without a socket (an in-process `app.fetch`) there is no peer: such requests share one key.
    const socketAddress = (c.env as NodeBindings | undefined)?.incoming?.socket?.remoteAddress ?? 'unknown';
    // Parsed once: the spelling, the rate-limit key and what an answer states all come from this one parse.
    const client = resolveClientAddress(socketAddress, c.req.header('x-forwarded-for'), trustProxy);
    c.set('clientAddress', client.text);
    c.set('clientKey', clientKey(client));
    c.set('observedIp', client.family === 0 ? null : client.text);
    c.set('keyedHashes', hashes);
    try {
      await next();
    } finally {
      // The record is built only when the level keeps it (LOG_LEVEL=warn drops one line per request).
      if (logger.writes('info'))
        logger.info('request', {
          request_id: requestId,
          method: c.req.method,
          route: c.req.routePath,
          status: c.res.status,
          duration_ms: Math.round((performance.now() - started) * 100) / 100,
        });
    }
  };
}
