import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOverHttp, type HttpServer } from '../support/browser.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request over a real socket, framed exactly as given: `app.request()` in the other tests has no
 * HTTP framing (no Content-Length, every POST has a body stream), which is where such bugs hide.
 */
function raw(
  origin: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(`${origin}${path}`, { method, headers, agent: false }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    // A server may answer (413) before reading the whole body and then close: the answer is what counts.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    // Like curl, a large body goes out in slices and stops once the server has answered: a server that
    // refuses it early (413) closes the connection, and unread bytes would make the kernel reset it.
    const slices = body === undefined ? [] : (body.match(/[\s\S]{1,16384}/g) ?? []);
    const sendNext = (): void => {
      while (!answered && slices.length > 0) {
        if (!req.write(slices.shift()!)) return void req.once('drain', sendNext);
      }
      req.end();
    };
    sendNext();
  });
}

const envelope = (answer: RawAnswer) =>
  JSON.parse(answer.body) as { error?: { code: string }; data?: Record<string, unknown> };

describe('the HTTP edge over a real socket', () => {
  let t: TestApp;
  let server: HttpServer;
  beforeAll(async () => {
    server = await serveOverHttp(async (origin) => (t = await createTestApp({ PUBLIC_BASE_URL: origin })).app);
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });

  const sessionCookie = async () => {
    const page = await raw(server.origin, 'GET', '/slowdns');
    return String(page.headers['set-cookie']).split(';')[0]!;
  };

  it('a POST without any body issues a code (curl -X POST -b cookies)', async () => {
    const answer = await raw(server.origin, 'POST', '/api/v2/slowdns/code/issue', { cookie: await sessionCookie() });
    expect(answer.status).toBe(201);
    expect(envelope(answer).data?.install_code).toMatch(/^SDNS-SD-/);
  });

  it('an empty body labelled JSON issues a code too', async () => {
    const answer = await raw(server.origin, 'POST', '/api/v2/slowdns/code/issue', {
      cookie: await sessionCookie(),
      'content-type': 'application/json',
      'content-length': '0',
    });
    expect(answer.status).toBe(201);
  });

  it('a bodyless revoke without a token is 401, not 415', async () => {
    const answer = await raw(server.origin, 'POST', '/revoke');
    expect([answer.status, envelope(answer).error?.code]).toEqual([401, 'agent_token_invalid']);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])(
    '%s on a GET route is 405 method_not_allowed with Allow',
    async (method) => {
      const answer = await raw(server.origin, method, '/api/v2/healthz');
      expect([answer.status, envelope(answer).error?.code]).toEqual([405, 'method_not_allowed']);
      expect(answer.headers.allow).toBe('GET, HEAD');
    },
  );

  it.each([
    [
      "an empty form body (curl -d '')",
      { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' },
      '',
    ],
    ['text/plain with no body', { 'content-type': 'text/plain', 'content-length': '0' }, ''],
    ['a form body', { 'content-type': 'application/x-www-form-urlencoded' }, 'install_code=x'],
  ])('%s on a JSON route is 415 unsupported_media_type', async (_, headers, body) => {
    const answer = await raw(server.origin, 'POST', '/api/v2/slowdns/install/precheck', headers, body);
    expect([answer.status, envelope(answer).error?.code]).toEqual([415, 'unsupported_media_type']);
  });

  it('malformed JSON (400), a chunked 2 MB body (413) and an unknown route (404) get their envelopes and leave the server healthy', async () => {
    const json = { 'content-type': 'application/json' };
    const malformed = await raw(server.origin, 'POST', '/api/v2/slowdns/install/precheck', json, '{"install_code": ');
    expect([malformed.status, envelope(malformed).error?.code]).toEqual([400, 'validation_failed']);
    const huge = await raw(
      server.origin,
      'POST',
      '/api/v2/slowdns/install/precheck',
      { ...json, 'transfer-encoding': 'chunked' },
      JSON.stringify({ x: 'y'.repeat(2 * 1024 * 1024) }),
    );
    expect([huge.status, envelope(huge).error?.code]).toEqual([413, 'payload_too_large']);
    expect(huge.headers.connection).toBe('close');
    const unknown = await raw(server.origin, 'GET', '/no/such/route');
    expect([unknown.status, envelope(unknown).error?.code]).toEqual([404, 'not_found']);
    expect((await raw(server.origin, 'GET', '/api/v2/healthz')).status).toBe(200);
  });

  it('a declared Content-Length over the limit is 413 from the headers alone, before a byte of the body', async () => {
    // Only the headers go out: an answer proves the server decided without waiting for the body.
    const headersOnly = (path: string, method: string, length: number) =>
      new Promise<RawAnswer>((resolve, reject) => {
        const req = httpRequest(
          `${server.origin}${path}`,
          { method, agent: false, headers: { 'content-type': 'application/json', 'content-length': String(length) } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
          },
        );
        req.on('error', reject);
        req.flushHeaders();
      });
    for (const [method, path, length] of [
      ['POST', '/api/v2/slowdns/install/precheck', 64 * 1024 + 1],
      ['GET', '/api/v2/healthz', 64 * 1024 + 1],
      ['POST', '/register', 8 * 1024 + 1],
    ] as const) {
      const answer = await headersOnly(path, method, length);
      expect([method, path, answer.status, envelope(answer).error?.code, answer.headers.connection]).toEqual([
        method,
        path,
        413,
        'payload_too_large',
        'close',
      ]);
    }
    // At the limit the body is read and judged as usual.
    const atLimit = await raw(
      server.origin,
      'POST',
      '/api/v2/slowdns/install/precheck',
      { 'content-type': 'application/json' },
      JSON.stringify({ x: 'y'.repeat(64 * 1024 - 8) }),
    );
    expect([atLimit.status, envelope(atLimit).error?.code]).toEqual([400, 'validation_failed']);
  });

  it('a JSON media type with parameters is accepted', async () => {
    const answer = await raw(
      server.origin,
      'POST',
      '/api/v2/slowdns/install/precheck',
      { 'content-type': 'application/json; charset=utf-8' },
      '{}',
    );
    expect([answer.status, envelope(answer).error?.code]).toEqual([400, 'validation_failed']);
  });
});
