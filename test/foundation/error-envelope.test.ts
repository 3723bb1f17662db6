import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.js';

// A POST route with a JSON body proves the app-wide body guards; a GET-only route the 405.
const JSON_ROUTE = '/api/v2/slowdns/install/precheck';
const GET_ROUTE = '/api/v2/healthz';

describe('every non-2xx answer is the one error envelope', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function expectEnvelope(res: Response, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expect(body).toEqual({ error: { code, message: expect.any(String) } });
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts|Error:/);
    return body;
  }

  it('an unknown route is 404 not_found', async () => {
    await expectEnvelope(await t.request('/no/such/route'), 404, 'not_found');
  });

  it('a known route with the wrong method is 405 method_not_allowed with Allow', async () => {
    const res = await t.request(GET_ROUTE, { method: 'DELETE' });
    expect(res.headers.get('allow')).toContain('GET');
    await expectEnvelope(res, 405, 'method_not_allowed');
  });

  it('a body that is not JSON content is 415 unsupported_media_type', async () => {
    const res = await t.request(JSON_ROUTE, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    await expectEnvelope(res, 415, 'unsupported_media_type');
  });

  it('a 2 MB body is 413 payload_too_large and the server stays healthy', async () => {
    const res = await t.request(JSON_ROUTE, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ blob: 'x'.repeat(2 * 1024 * 1024) }),
    });
    await expectEnvelope(res, 413, 'payload_too_large');
    expect((await t.request(GET_ROUTE)).status).toBe(200);
  });
});
