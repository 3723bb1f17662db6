import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import type { AppEnv } from './app-env.js';

/** Request bodies larger than this are refused with 413 before they are read. */
const MAX_BODY_BYTES = 64 * 1024;

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
 * A refused body is still read and thrown away up to this many bytes, so that a client still sending it
 * receives the 413 instead of a reset: closing a socket with unread bytes makes the kernel reset it, and a
 * client still writing then fails (EPIPE) before it reads the answer. A larger body is not read: its answer
 * closes the connection.
 */
export const DISCARD_AT_MOST = 16 * 1024 * 1024;

/**
 * Refuses a body larger than `maxBytes` with 413 `payload_too_large` before it is read. A declared
 * `Content-Length` (what every client sends for a body it holds) and a GET or HEAD without one are
 * decided from the headers alone: the answer goes out at once and, up to `DISCARD_AT_MOST`, the
 * connection stays open while node:http reads the declared rest and drops it (@hono/node-server gives it
 * 500 ms after the answer before it closes the socket). Only a body of unknown length (chunked) is counted
 * as it arrives, then read on and dropped up to `DISCARD_AT_MOST` once over the limit: reaching for the
 * body stream turns @hono/node-server's light request into a full web Request with a stream around the
 * socket, which costs more than the rest of a small request.
 */
export function bodySizeLimit(maxBytes: number): MiddlewareHandler<AppEnv> {
  const tooLarge = (discarded: boolean) => {
    // A body not read to its end (past DISCARD_AT_MOST): this connection cannot carry another request.
    throw new ApiError(
      'payload_too_large',
      `The request body is larger than ${maxBytes / 1024} KiB.`,
      discarded ? undefined : { Connection: 'close' },
    );
  };
  return async (c, next) => {
    const declared = c.req.header('content-length');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    if (declared !== undefined && !chunked) {
      const length = Number.parseInt(declared, 10);
      return length > maxBytes ? tooLarge(length <= DISCARD_AT_MOST) : next();
    }
    if (!chunked && (c.req.method === 'GET' || c.req.method === 'HEAD')) return next();
    const body = c.req.raw.body;
    if (!body) return next();
    const read = await readAtMost(body.getReader(), maxBytes);
    if (read.tooLarge) return tooLarge(read.discarded);
    c.req.raw = new Request(c.req.raw, { body: read.bytes });
    return next();
  };
}

type Counted = { tooLarge: false; bytes: Uint8Array<ArrayBuffer> } | { tooLarge: true; discarded: boolean };

/** The whole body if it is at most `maxBytes`; past that, the rest read and dropped up to `DISCARD_AT_MOST`. */
async function readAtMost(reader: ReadableStreamDefaultReader<Uint8Array>, maxBytes: number): Promise<Counted> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { tooLarge: false, bytes: Buffer.concat(chunks, size) };
    size += value.length;
    if (size > maxBytes) break;
    chunks.push(value);
  }
  while (size <= DISCARD_AT_MOST) {
    const { done, value } = await reader.read();
    if (done) return { tooLarge: true, discarded: true };
    size += value.length;
  }
  return { tooLarge: true, discarded: false };
}

export const limitBodySize = bodySizeLimit(MAX_BODY_BYTES);
