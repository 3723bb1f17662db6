import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnService, type SpawnedService } from '../support/spawn-service.js';

/** Sends `head`, then `trickle` one byte every `everyMs`; resolves with what came back once the server closes the connection. */
function trickle(
  port: number,
  head: string,
  trickle: string,
  everyMs: number,
): Promise<{ answer: string; bytesSent: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (sent < trickle.length && !socket.destroyed) socket.write(trickle[sent++]!);
      }, everyMs);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, bytesSent: sent });
    });
    setTimeout(() => reject(new Error('the server never cut the connection')), 60_000).unref();
  });
}

/** A raw answer: the status line, the envelope with its code, a request id, and the connection closed. */
function expectEnvelope(answer: string, status: number, code: string): void {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(head).toMatch(/^content-type: application\/json$/im);
  expect(head).toMatch(/^x-request-id: [0-9a-f-]{36}$/im);
  expect(head).toMatch(/^connection: close$/im);
  expect(JSON.parse(body)).toEqual({ error: { code, message: expect.any(String) } });
}

// Slow clients are cut without affecting the others: the real server, with a 2 s request timeout.
describe('slow clients', { timeout: 180_000 }, () => {
  let service: SpawnedService;
  let port: number;
  beforeAll(async () => {
    service = spawnService({ DATA_DIR: 'memory://', REQUEST_TIMEOUT_SECONDS: '2' });
    port = await service.port;
    await service.logged('ready');
  });
  afterAll(async () => {
    expect(await service.stop()).toBe(0);
  });

  it('a trickled body is cut (408) while healthz from fresh connections stays fast', async () => {
    const body = JSON.stringify({ activation_id: 'act_0000000000000000' }).padEnd(400, ' ');
    const head = `POST /api/v2/slowdns/install/release HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const cut = trickle(port, head, body, 200);
    const healthTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}/api/v2/healthz`, { headers: { connection: 'close' } });
      expect(res.status).toBe(200);
      healthTimes.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 300));
    }
    const { answer, bytesSent } = await cut;
    // Cut long before the 400 bytes (80 s at this pace) arrived.
    expect(bytesSent).toBeLessThan(body.length);
    expectEnvelope(answer, 408, 'request_timeout');
    expect(Math.max(...healthTimes)).toBeLessThan(5000);
  });

  it('headers sent one byte at a time (slowloris) are cut too', async () => {
    const head = `GET /api/v2/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(300)}\r\n\r\n`;
    const { answer, bytesSent } = await trickle(port, '', head, 100);
    expect(bytesSent).toBeLessThan(head.length);
    expectEnvelope(answer, 408, 'request_timeout');
  });

  it('bytes that are not HTTP get the 400 envelope, and the connection closes', async () => {
    expectEnvelope((await trickle(port, 'HELLO THERE\r\n\r\n', '', 1000)).answer, 400, 'malformed_request');
  });

  it('headers over the limit get the 431 envelope, and the connection closes', async () => {
    const huge = `GET /api/v2/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    expectEnvelope((await trickle(port, huge, '', 1000)).answer, 431, 'request_headers_too_large');
  });
});
