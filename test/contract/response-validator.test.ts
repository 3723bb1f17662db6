import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/openapi-document.js';
import { ResponseValidator } from '../support/response-validator.js';

// The harness check that every answer of every test is as documented must itself be able to fail.
const document = JSON.parse(readFileSync('openapi/openapi.json', 'utf8')) as OpenApiDocument;
const validator = new ResponseValidator(document as never, { counted: false });

const baseline = { 'x-request-id': 'req-1', 'x-content-type-options': 'nosniff' };
const json = (status: number, body: unknown, headers: Record<string, string> = baseline) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const error = (status: number, code: string, headers: Record<string, string> = baseline) =>
  json(status, { error: { code, message: 'm' } }, headers);
const healthy = { data: { status: 'ok' }, meta: { message: 'The service is healthy.' } };

describe('the response validator', () => {
  it('passes an answer as documented', async () => {
    await expect(validator.assert('GET', '/api/v2/healthz', json(200, healthy))).resolves.toBeUndefined();
    await expect(
      validator.assert(
        'GET',
        '/api/v2/healthz',
        error(503, 'service_unavailable', { ...baseline, 'retry-after': '1' }),
      ),
    ).resolves.toBeUndefined();
  });

  it('fails a body that does not match its schema', async () => {
    await expect(
      validator.assert('GET', '/api/v2/healthz', json(200, { data: { status: 'fine' }, meta: { message: 'x' } })),
    ).rejects.toThrow(/body\/data\/status must be equal to one of the allowed values/);
    await expect(validator.assert('GET', '/api/v2/healthz', json(200, { data: { status: 'ok' } }))).rejects.toThrow(
      /must have required property 'meta'/,
    );
  });

  it('fails a status the operation does not document', async () => {
    await expect(validator.assert('GET', '/api/v2/healthz', error(418, 'internal_error'))).rejects.toThrow(
      /418, a status its OpenAPI responses do not document/,
    );
  });

  it('fails a missing required header, and a malformed one', async () => {
    await expect(
      validator.assert('GET', '/api/v2/healthz', json(200, healthy, { 'x-content-type-options': 'nosniff' })),
    ).rejects.toThrow(/required header X-Request-Id is missing/);
    await expect(validator.assert('GET', '/api/v2/healthz', error(503, 'service_unavailable'))).rejects.toThrow(
      /required header Retry-After is missing/,
    );
    await expect(
      validator.assert(
        'GET',
        '/api/v2/healthz',
        error(503, 'service_unavailable', { ...baseline, 'retry-after': 'soon' }),
      ),
    ).rejects.toThrow(/header Retry-After: "soon" value must be integer/);
  });

  it('fails an error code the document does not list for that status, and a wrong content type', async () => {
    await expect(
      validator.assert('POST', '/api/v2/slowdns/install/precheck', error(404, 'activation_not_found')),
    ).rejects.toThrow(/error code "activation_not_found", which the document does not list/);
    await expect(
      validator.assert(
        'GET',
        '/api/v2/healthz',
        new Response('ok', { status: 200, headers: { ...baseline, 'content-type': 'text/plain' } }),
      ),
    ).rejects.toThrow(/content type "text\/plain"/);
  });

  it('checks unrouted answers against components.responses, and leaves undocumented plain routes alone', async () => {
    await expect(validator.assert('GET', '/nope', error(404, 'not_found'))).resolves.toBeUndefined();
    await expect(
      validator.assert(
        'GET',
        '/api/v2/slowdns/install/precheck',
        error(405, 'method_not_allowed', { ...baseline, allow: 'POST' }),
      ),
    ).resolves.toBeUndefined();
    await expect(
      validator.assert('GET', '/api/v2/slowdns/install/precheck', error(405, 'method_not_allowed')),
    ).rejects.toThrow(/required header Allow is missing/);
    await expect(validator.assert('GET', '/docs', new Response('<html>', { status: 200 }))).resolves.toBeUndefined();
  });
});
