import createFetchClient from 'openapi-fetch';
import { parseRetryAfter, SlowdnsApiError, SlowdnsNetworkError } from './errors.js';
import { defaultRetry, retryDelayMs, sleep, type RetryOptions } from './retry.js';
import type { paths } from './schema.js';

/** The request header that makes an admin POST safe to repeat (DESIGN §27). */
export const IDEMPOTENCY_KEY = 'Idempotency-Key';

export interface AdminClientOptions {
  /** Origin of the service, e.g. `https://activation.example.net`. */
  baseUrl: string;
  /** `ADMIN_TOKEN` or a named operator token (`sdo_…`). */
  token: string;
  /** A fetch to use instead of `globalThis.fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Retries on a network failure, a 503 and a 409 `idempotency_key_in_flight`, as `createClient`'s (a number
   * is `maxRetries`; default none). Every admin POST is sent again with its own Idempotency-Key, so a
   * create whose answer was lost answers the first answer, the same secret, instead of making a second one.
   */
  retry?: number | RetryOptions;
  /** A fresh Idempotency-Key for each POST that has none; default `crypto.randomUUID()`. */
  newKey?: () => string;
}

/** Whether an answer is worth the same request again, with the same key: how long to wait, or undefined. */
async function answerRetryDelay(
  response: Response,
  attempt: number,
  retry: Required<RetryOptions>,
  signal: AbortSignal,
): Promise<number | undefined> {
  if (response.status === 409) {
    const body = (await response
      .clone()
      .json()
      .catch(() => undefined)) as { error?: { code?: string } } | undefined;
    if (body?.error?.code !== 'idempotency_key_in_flight') return undefined;
  } else if (response.status !== 503) return undefined;
  const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'));
  const error = new SlowdnsApiError({
    operation: 'admin',
    status: 503,
    code: 'service_unavailable',
    message: '',
    retryAfterSeconds,
  });
  return retryDelayMs(error, attempt, retry, signal);
}

/**
 * The fetch under the admin client: every POST carries an Idempotency-Key (the caller's own, or a fresh
 * one) and, after a network failure, a 503 or a 409 `idempotency_key_in_flight`, is sent again whole with
 * that same key, as `retry` allows. Other methods are retried the same way: reading or removing twice is harmless.
 */
function idempotentAdminFetch(
  baseFetch: (request: Request) => Promise<Response>,
  retry: Required<RetryOptions>,
  newKey: () => string = () => crypto.randomUUID(),
): (request: Request) => Promise<Response> {
  return async (request) => {
    const headers = new Headers(request.headers);
    if (request.method === 'POST' && !headers.has(IDEMPOTENCY_KEY)) headers.set(IDEMPOTENCY_KEY, newKey());
    const body = request.body ? await request.arrayBuffer() : undefined;
    for (let attempt = 0; ; attempt++) {
      const sent = new Request(request.url, {
        method: request.method,
        headers,
        signal: request.signal,
        ...(body === undefined ? {} : { body }),
      });
      let response: Response;
      try {
        response = await baseFetch(sent);
      } catch (error) {
        const wait = retryDelayMs(new SlowdnsNetworkError('admin', request.url, error), attempt, retry, request.signal);
        if (wait === undefined) throw error;
        await sleep(wait, request.signal);
        continue;
      }
      const wait = await answerRetryDelay(response, attempt, retry, request.signal);
      if (wait === undefined) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}

/**
 * The admin API (`/api/v2/admin/…`) as openapi-fetch typed by the contract: `client.POST('/api/v2/admin/install-codes',
 * { body })` and so on, with the operator token, an Idempotency-Key on every POST and the retries of `retry`.
 */
export function createAdminClient(options: AdminClientOptions) {
  const retry =
    typeof options.retry === 'number'
      ? { ...defaultRetry, maxRetries: options.retry }
      : { ...defaultRetry, ...options.retry };
  return createFetchClient<paths, 'application/json'>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.token}` },
    fetch: idempotentAdminFetch(options.fetch ?? ((request) => globalThis.fetch(request)), retry, options.newKey),
  });
}

export type AdminClient = ReturnType<typeof createAdminClient>;
