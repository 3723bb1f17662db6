/**
 * Failures that are not the service saying no: no answer at all (SlowdnsNetworkError) or an answer
 * that is not the service's envelope (SlowdnsUnexpectedResponseError). The service's own error
 * answers are in error-mapping.test.ts.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createClient, SlowdnsApiError, SlowdnsNetworkError, SlowdnsUnexpectedResponseError } from '../src/index.js';
import { precheckBody } from './client-harness.js';

describe('failures that are not the service saying no', () => {
  it('a closed port is a SlowdnsNetworkError, not an API error', async () => {
    const port = await closedPort();
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}` });
    const error = await client.healthz().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlowdnsNetworkError);
    expect(error).not.toBeInstanceOf(SlowdnsApiError);
    expect((error as SlowdnsNetworkError).operation).toBe('getHealth');
    expect((error as SlowdnsNetworkError).url).toBe(`http://127.0.0.1:${port}/api/v2/healthz`);
    expect(((error as Error).cause as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
  });

  it('an aborted request is a SlowdnsNetworkError whose cause is the abort', async () => {
    const client = createClient({
      baseUrl: 'http://localhost',
      fetch: (request) =>
        new Promise((_, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason))),
    });
    const controller = new AbortController();
    const pending = client.healthz({ signal: controller.signal }).catch((e: unknown) => e);
    controller.abort(new Error('operator pressed Ctrl-C'));
    const error = await pending;
    expect(error).toBeInstanceOf(SlowdnsNetworkError);
    expect((error as Error).cause).toEqual(new Error('operator pressed Ctrl-C'));
  });

  it('a proxy’s HTML error page is a SlowdnsUnexpectedResponseError with its status', async () => {
    const client = createClient({
      baseUrl: 'http://localhost',
      fetch: async () =>
        new Response('<html><body>502 Bad Gateway</body></html>', {
          status: 502,
          headers: { 'content-type': 'text/html', 'x-request-id': 'edge-1' },
        }),
    });
    const error = await client.precheck(precheckBody('SDNS-SD-000000-000000-000000')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlowdnsUnexpectedResponseError);
    expect(error).toMatchObject({
      status: 502,
      requestId: 'edge-1',
      operation: 'precheckInstallCode',
      bodyExcerpt: expect.stringContaining('502 Bad Gateway'),
    });
  });

  it('a 200 whose body is not JSON is a SlowdnsUnexpectedResponseError', async () => {
    const client = createClient({
      baseUrl: 'http://localhost',
      fetch: async () => new Response('ok', { status: 200 }),
    });
    await expect(client.healthz()).rejects.toMatchObject({ name: 'SlowdnsUnexpectedResponseError', status: 200 });
  });
});

/** A port nothing listens on: bound once by us, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
