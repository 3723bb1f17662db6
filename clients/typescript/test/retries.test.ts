/**
 * Timeout, User-Agent and opt-in retries against small real HTTP servers that misbehave on purpose.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CLIENT_NAME,
  CLIENT_VERSION,
  createClient,
  SlowdnsApiError,
  SlowdnsNetworkError,
  SlowdnsTimeoutError,
} from '../src/index.js';
import { activateBody, inProcess, issueCode, precheckBody } from './client-harness.js';

interface Seen {
  at: number;
  userAgent: string | undefined;
}

const servers: { close(): void; closeAllConnections(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A server whose n-th request (from 0) is answered by `answer(n, res)`; it records when each came and its User-Agent. */
async function misbehaving(
  answer: (n: number, res: ServerResponse) => void,
): Promise<{ baseUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    seen.push({ at: performance.now(), userAgent: req.headers['user-agent'] });
    answer(seen.length - 1, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function envelope(res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { code, message: `${code} (test server)` } }));
}

const healthy = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ data: { status: 'ok' }, meta: { message: 'The service is healthy.' } }));
};

describe('retries, timeout and User-Agent', () => {
  it('503 twice then 200: retried, waiting the Retry-After each time', async () => {
    const { baseUrl, seen } = await misbehaving((n, res) =>
      n < 2 ? envelope(res, 503, 'service_unavailable', { 'retry-after': '1' }) : healthy(res),
    );
    const client = createClient({ baseUrl, retry: { maxRetries: 3, baseDelayMs: 10 } });
    expect(await client.healthz()).toEqual({ status: 'ok' });
    expect(seen).toHaveLength(3);
    // Retry-After: 1 is honoured: the backoff alone (10-20 ms) would have come back far sooner.
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
    expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(950);
  });

  it('retries are opt-in: without `retry` a 503 is thrown after one request', async () => {
    const { baseUrl, seen } = await misbehaving((_, res) =>
      envelope(res, 503, 'service_unavailable', { 'retry-after': '1' }),
    );
    const error = await createClient({ baseUrl })
      .healthz()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable', retryAfterSeconds: 1 });
    expect(seen).toHaveLength(1);
  });

  it('429 is never retried: one request, a typed error with retryAfterSeconds', async () => {
    const { baseUrl, seen } = await misbehaving((_, res) =>
      envelope(res, 429, 'rate_limit_exceeded', { 'retry-after': '120' }),
    );
    const client = createClient({ baseUrl, retry: { maxRetries: 5, baseDelayMs: 10 } });
    const error = await client.precheck(precheckBody('SDNS-SD-000000-000000-000000')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlowdnsApiError);
    expect(error).toMatchObject({
      status: 429,
      code: 'rate_limit_exceeded',
      retryAfterSeconds: 120,
      operation: 'precheckInstallCode',
    });
    expect(seen).toHaveLength(1);
  });

  it('a server that never answers: SlowdnsTimeoutError after timeoutMs, and each retry gets its own timeout', async () => {
    const { baseUrl, seen } = await misbehaving(() => undefined);
    const started = performance.now();
    const error = await createClient({ baseUrl, timeoutMs: 300 })
      .healthz()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlowdnsTimeoutError);
    expect(error).toBeInstanceOf(SlowdnsNetworkError);
    expect(error).toMatchObject({ timeoutMs: 300, operation: 'getHealth' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(seen).toHaveLength(1);

    const retried = await createClient({ baseUrl, timeoutMs: 200, retry: { maxRetries: 1, baseDelayMs: 10 } })
      .healthz()
      .catch((e: unknown) => e);
    expect(retried).toBeInstanceOf(SlowdnsTimeoutError);
    expect(seen).toHaveLength(3);
  });

  it('a server that never answers: the timeout still ends the call when garbage is collected while waiting', async () => {
    // Node's fetch once lost the timeout of a call whose waiting spanned a garbage collection: the call hung.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { baseUrl } = await misbehaving(() => undefined);
    const collecting = setInterval(gc, 20);
    try {
      const client = createClient({ baseUrl, timeoutMs: 200 });
      for (let i = 0; i < 3; i++) {
        const outcome = await Promise.race([
          client.healthz().catch((e: unknown) => e),
          new Promise((resolve) => setTimeout(resolve, 5_000, 'still waiting after 5 s')),
        ]);
        expect(outcome).toBeInstanceOf(SlowdnsTimeoutError);
      }
    } finally {
      clearInterval(collecting);
    }
  });

  it('issue is never resent, even with retries on', async () => {
    const { baseUrl, seen } = await misbehaving((_, res) => envelope(res, 503, 'service_unavailable'));
    const client = createClient({ baseUrl, retry: { maxRetries: 3, baseDelayMs: 10 } });
    await expect(client.issueInstallCode()).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(1);
  });

  it('register is resent after a 503 with retries on (a repeat before the first check-in answers a new agent token)', async () => {
    const { baseUrl, seen } = await misbehaving((_, res) => envelope(res, 503, 'service_unavailable'));
    const client = createClient({ baseUrl, retry: { maxRetries: 2, baseDelayMs: 10 } });
    await expect(
      client.register({ activation_id: 'act_0000000000000000', install_token: 'a.b.c', agent_version: '2026.11.20.1' }),
    ).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(3);
  });

  it('a 503 asking for longer than maxRetryAfterSeconds is thrown at once', async () => {
    const { baseUrl, seen } = await misbehaving((_, res) =>
      envelope(res, 503, 'service_unavailable', { 'retry-after': '600' }),
    );
    await expect(createClient({ baseUrl, retry: 3 }).healthz()).rejects.toMatchObject({ retryAfterSeconds: 600 });
    expect(seen).toHaveLength(1);
  });

  it("sends User-Agent with the package name and version, after the caller's own product", async () => {
    const { baseUrl, seen } = await misbehaving((_, res) => healthy(res));
    await createClient({ baseUrl }).healthz();
    await createClient({ baseUrl, headers: { 'user-agent': 'my-installer/2026.11.20.1' } }).healthz();
    expect(seen.map((s) => s.userAgent)).toEqual([
      `${CLIENT_NAME}/${CLIENT_VERSION}`,
      `my-installer/2026.11.20.1 ${CLIENT_NAME}/${CLIENT_VERSION}`,
    ]);
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect({ name: pkg.name, version: pkg.version }).toEqual({ name: CLIENT_NAME, version: CLIENT_VERSION });
  });

  it('a confirm whose answer was lost is resent, and resolves confirmed rather than install_token_used', async () => {
    const h = await inProcess();
    try {
      let lost = false;
      const client = createClient({
        baseUrl: h.baseUrl,
        retry: { maxRetries: 2, baseDelayMs: 10 },
        fetch: async (request) => {
          const response = await h.fetch(new URL(request.url).pathname, {
            method: request.method,
            headers: request.headers,
            body: (await request.text()) || undefined,
          });
          // The first confirm reaches the service, then its answer is lost on the way back.
          if (request.url.endsWith('/install/confirm') && !lost) {
            lost = true;
            throw new TypeError('fetch failed');
          }
          return response;
        },
      });
      const code = await issueCode(h);
      const precheck = await client.precheck(precheckBody(code));
      const activation = await client.activate(activateBody(code, precheck.precheck_token));
      expect(
        await client.confirm({ activation_id: activation.activation_id, install_token: activation.install_token }),
      ).toEqual({
        activation_id: activation.activation_id,
        status: 'confirmed',
        receipt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      });
      expect(lost).toBe(true);
    } finally {
      await h.close();
    }
  }, 120_000);
});
