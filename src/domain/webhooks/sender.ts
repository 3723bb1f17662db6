import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lookupOnly, resolveWebhookTarget, WebhookUrlRefused, type WebhookSafety } from './url-safety.js';

/** 2xx within this is delivered; anything slower is cut and counts as a failure. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Kept of a receiver's answer (public targets only): enough to see an error message, never a page. */
const RESPONSE_EXCERPT_CHARS = 256;
const RESPONSE_READ_BYTES = 1024;

export interface AttemptOutcome {
  delivered: boolean;
  statusCode: number | null;
  /** A network error, a timeout or a refused address, in a few words; null when an answer came. */
  error: string | null;
  responseExcerpt: string | null;
  durationMs: number;
  /** A 429's `Retry-After` (seconds, or an HTTP date), in seconds from the answer: the endpoint waits that long (DESIGN §28). */
  retryAfterSeconds?: number | undefined;
}

/** The longest a `Retry-After` delays an endpoint: a receiver cannot silence it for days. */
const MAX_RETRY_AFTER_SECONDS = 3600;

/**
 * `Retry-After` in seconds (delta-seconds, or an HTTP date counted from the answer's own `Date`, RFC 9110
 * §10.2.3, so no clock of ours is read); undefined when absent or unreadable (a 429 then waits a minute).
 */
function retryAfterSeconds(header: string | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = /^\s*\d+\s*$/.test(header) ? Number(header) : (Date.parse(header) - now) / 1000;
  if (!Number.isFinite(seconds)) return undefined;
  return Math.min(Math.max(Math.ceil(seconds), 0), MAX_RETRY_AFTER_SECONDS);
}

export interface SendOptions {
  safety: WebhookSafety;
  timeoutMs?: number;
  /** DNS resolution (tests resolve names themselves); every address it gives is checked. */
  resolve?: (host: string) => Promise<string[]>;
}

/**
 * POSTs one message. The URL's host is resolved and every address checked again (§15), and the
 * connection goes to the checked address through a `lookup` that answers only it: DNS cannot move a
 * hook inward between the check and the connection. Redirects are not followed (a 3xx is a failure);
 * the whole attempt, connection to answer, is cut at `timeoutMs`.
 */
export async function sendWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: Awaited<ReturnType<typeof resolveWebhookTarget>>;
  try {
    target = await resolveWebhookTarget(url, options.safety, options.resolve);
  } catch (err) {
    const error =
      err instanceof WebhookUrlRefused
        ? `refused: ${err.message}`
        : `dns: ${(err as NodeJS.ErrnoException).code ?? 'lookup failed'}`;
    return { delivered: false, statusCode: null, error, responseExcerpt: null, durationMs: elapsed() };
  }
  const { isPrivate } = target;
  const lookup = lookupOnly(target);
  const request = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<AttemptOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const req = request(target.url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'SlowDNS-Webhooks/1',
      },
      lookup,
      agent: false,
    });
    const timer = setTimeout(() => {
      finish({ delivered: false, statusCode: null, error: 'timeout', responseExcerpt: null });
      req.destroy();
    }, options.timeoutMs ?? WEBHOOK_TIMEOUT_MS);
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish({ delivered: false, statusCode: null, error: `network: ${err.code ?? 'error'}`, responseExcerpt: null }),
    );
    req.on('response', (res: IncomingMessage) => {
      const statusCode = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let read = 0;
      const done = () => {
        const text = Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT_CHARS);
        // No excerpt from a private target: what an internal service answers stays inside.
        finish({
          delivered: statusCode >= 200 && statusCode < 300,
          statusCode,
          error: null,
          responseExcerpt: isPrivate || text === '' ? null : text,
          retryAfterSeconds:
            statusCode === 429
              ? (retryAfterSeconds(res.headers['retry-after'], Date.parse(res.headers.date ?? '')) ?? 60)
              : undefined,
        });
        res.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        read += chunk.length;
        if (read >= RESPONSE_READ_BYTES) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    req.end(body);
  });
}
