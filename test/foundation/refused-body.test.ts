import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCARD_AT_MOST } from '../../src/http/body-guards.js';
import { spawnService, type SpawnedService } from '../support/spawn-service.js';

// The compiled server in its own process: in one process with its client (serveOverHttp) the two share an
// event loop, and the client's writes never outrun the server's reads as they do between processes.
describe('a body over the limit', { timeout: 180_000 }, () => {
  let service: SpawnedService;
  let origin: string;
  beforeAll(async () => {
    service = spawnService({ DATA_DIR: 'memory://' });
    origin = `http://127.0.0.1:${await service.port}`;
    await service.logged('ready');
  });
  afterAll(async () => {
    expect(await service.stop()).toBe(0);
  });

  it("a body over the limit sent through Node's fetch gets its 413 envelope every time, on any step", async () => {
    // The server refuses from the headers while the client is still writing: it must read the rest (up to
    // DISCARD_AT_MOST) rather than close under the client, whose write then fails (EPIPE) before any answer.
    // How many bytes the kernel takes before the client must wait varies: 2 MB as one buffer passes on a
    // machine with large socket buffers, so the same 2 MB also goes out a slice at a time, and 8 MB at once.
    const slice = new Uint8Array(64 * 1024).fill(0x78);
    const sliced = (bytes: number) =>
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((resolve) => setImmediate(resolve));
          controller.enqueue(slice);
          bytes -= slice.length;
          if (bytes <= 0) controller.close();
        },
      });
    const MB = 1024 * 1024;
    const shapes: [string, () => { body: BodyInit; headers?: Record<string, string> }][] = [
      ['2 MB at once', () => ({ body: JSON.stringify({ install_code: 'x'.repeat(2 * MB) }) })],
      ['8 MB at once', () => ({ body: JSON.stringify({ install_code: 'x'.repeat(8 * MB) }) })],
      ['2 MB in slices, declared', () => ({ body: sliced(2 * MB), headers: { 'content-length': String(2 * MB) } })],
      ['2 MB in slices, chunked', () => ({ body: sliced(2 * MB) })],
    ];
    const paths = ['/api/v2/slowdns/install/precheck', '/api/v2/slowdns/install/activate', '/register'];
    for (const [shape, make] of shapes) {
      const answers: string[] = [];
      for (let i = 0; i < 20; i++) {
        const { body, headers } = make();
        const answer = await fetch(`${origin}${paths[i % paths.length]}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
          duplex: 'half',
        } as RequestInit).then(
          async (res) => `${res.status} ${((await res.json()) as { error?: { code: string } }).error?.code}`,
          (error: Error) => `failed: ${(error.cause as Error | undefined)?.message ?? error.message}`,
        );
        answers.push(answer);
      }
      expect([shape, answers]).toEqual([shape, Array(20).fill('413 payload_too_large')]);
    }
    expect((await fetch(`${origin}/api/v2/healthz`)).status).toBe(200);
  });
  it('a declared length past what is read and dropped is refused from the headers alone, closing the connection', async () => {
    const agent = new Agent({ keepAlive: true });
    const headersOnly = (length: number) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = request(
          `${origin}/api/v2/slowdns/install/precheck`,
          { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(length) } },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
          },
        );
        req.on('error', reject);
        req.flushHeaders();
      });
    // Only the headers go out: an answer proves the server decided without waiting for the body.
    expect(await headersOnly(DISCARD_AT_MOST + 1)).toEqual({ status: 413, connection: 'close' });
    expect(await headersOnly(64 * 1024 + 1)).toEqual({ status: 413, connection: 'keep-alive' });
    agent.destroy();
  });
});
