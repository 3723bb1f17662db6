import { SlowdnsApiError, SlowdnsNetworkError, SlowdnsUnexpectedResponseError } from './errors.js';

/**
 * Opt-in retries, as the SDKs people know do them (Stripe, Octokit): exponential backoff with jitter,
 * `Retry-After` honoured, and only where repeating a request cannot do harm.
 */
export interface RetryOptions {
  /** How many times a failed request is sent again. Default 0: no retry unless asked for. */
  maxRetries?: number;
  /** The first backoff; each retry doubles it, up to `maxDelayMs`, and a random half of it is taken off (jitter). Default 500 ms. */
  baseDelayMs?: number;
  /** The longest backoff. Default 8000 ms. */
  maxDelayMs?: number;
  /** A 503 whose `Retry-After` asks for longer than this is not waited for: the error is thrown at once. Default 60 s. */
  maxRetryAfterSeconds?: number;
}

export const defaultRetry: Required<RetryOptions> = {
  maxRetries: 0,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterSeconds: 60,
};

/**
 * How long to wait before sending again after `error` on retry number `attempt` (0 for the first),
 * or undefined when it must not be retried. Retried: a 503 (the service's `service_unavailable`, or a
 * proxy's 503) and network failures (no answer, a timeout), never a caller's own abort. Never retried:
 * 429 (a rate limit is a decision, not an outage: the caller hears `retryAfterSeconds` and decides)
 * and every other answer.
 */
export function retryDelayMs(
  error: unknown,
  attempt: number,
  options: Required<RetryOptions>,
  callerSignal: AbortSignal | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= options.maxRetries || callerSignal?.aborted) return undefined;
  const backoff = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  const jittered = backoff / 2 + random() * (backoff / 2);
  if (error instanceof SlowdnsNetworkError) return jittered;
  const status =
    error instanceof SlowdnsApiError || error instanceof SlowdnsUnexpectedResponseError ? error.status : undefined;
  if (status !== 503) return undefined;
  const retryAfter = error instanceof SlowdnsApiError ? error.retryAfterSeconds : undefined;
  if (retryAfter === undefined) return jittered;
  if (retryAfter > options.maxRetryAfterSeconds) return undefined;
  return Math.max(retryAfter * 1000, jittered);
}

/** Waits `ms`, or rejects with the abort reason as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
