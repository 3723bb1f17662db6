import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { envelopeOf } from '../schemas/envelope.js';
import { errorCatalog, type ErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';

/** Node's errors for a request that never became one, and the contract code each is answered with. */
const codeOfClientError: Record<string, ErrorCode> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
  HPE_HEADER_OVERFLOW: 'request_headers_too_large',
};

/**
 * Node's `clientError`: a request whose headers or body did not arrive within REQUEST_TIMEOUT_SECONDS,
 * headers over Node's limit, or bytes that are not HTTP. Node would answer a bare status line; this
 * answers the contract's envelope (with X-Request-Id, as every answer) and closes the connection. A
 * socket already reset or half-written to gets nothing more.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, logger: Logger): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const code = codeOfClientError[err.code ?? ''] ?? 'malformed_request';
  const status = errorCatalog[code].status;
  const body = JSON.stringify(envelopeOf(code));
  const requestId = crypto.randomUUID();
  logger.info('request cut', { request_id: requestId, status, code, reason: err.code ?? 'unknown' });
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'X-Content-Type-Options: nosniff',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
