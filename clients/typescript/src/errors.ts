import type { components } from './schema.js';

/** The contract's error codes: each always comes with the same HTTP status. */
export type ErrorCode = components['schemas']['ErrorCode'];

/** The service answered with its `{error:{code,message}}` envelope. */
export class SlowdnsApiError extends Error {
  override readonly name = 'SlowdnsApiError';
  /** The operation that failed, as its operationId (`precheckInstallCode`). */
  readonly operation: string;
  readonly status: number;
  readonly code: ErrorCode;
  /** Seconds to wait before retrying, from `Retry-After` (429 answers carry it). */
  readonly retryAfterSeconds: number | undefined;
  /** `X-Request-Id` of the answer: quote it when reporting a problem. */
  readonly requestId: string | undefined;

  constructor(init: {
    operation: string;
    status: number;
    code: ErrorCode;
    message: string;
    retryAfterSeconds?: number | undefined;
    requestId?: string | undefined;
  }) {
    // The message is the service's own: safe to show to operators as it is.
    super(init.message);
    this.operation = init.operation;
    this.status = init.status;
    this.code = init.code;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.requestId = init.requestId;
  }
}

/** No answer at all: refused or reset connection, DNS failure, timeout, or an aborted request. `cause` holds the fetch error. */
export class SlowdnsNetworkError extends Error {
  override readonly name: string = 'SlowdnsNetworkError';
  constructor(
    readonly operation: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(`${operation}: no answer from ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** No answer within the client's `timeoutMs`: a SlowdnsNetworkError too, so one `instanceof` catches both. */
export class SlowdnsTimeoutError extends SlowdnsNetworkError {
  override readonly name: string = 'SlowdnsTimeoutError';
  constructor(
    operation: string,
    url: string,
    readonly timeoutMs: number,
  ) {
    super(operation, url, new Error(`no answer within ${timeoutMs} ms`));
  }
}

/**
 * An answer that is not the contract's: e.g. an HTML 502 page from a proxy in front of the service,
 * or a body that is not JSON. Kept apart from SlowdnsApiError so that `code` is always a real contract code.
 */
export class SlowdnsUnexpectedResponseError extends Error {
  override readonly name = 'SlowdnsUnexpectedResponseError';
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly requestId: string | undefined,
    /** The start of the body, for the log. */
    readonly bodyExcerpt: string,
  ) {
    super(`${operation}: unexpected HTTP ${status} answer that is not the service's JSON envelope`);
  }
}

/** `Retry-After` as delta-seconds, the form this service sends; an HTTP-date (not sent by it) gives undefined. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number.parseInt(value, 10);
}
