import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/openapi-document.js';
import { assertErrorDocumented } from '../support/documented-errors.js';

// The harness check that every test's error answers are documented must itself be able to fail.
const document = {
  paths: {
    '/api/v2/thing': {
      post: { responses: { '404': { content: { 'application/json': { examples: { install_code_not_found: {} } } } } } },
    },
  },
} as unknown as OpenApiDocument;

const answer = (status: number, code: string) => new Response(JSON.stringify({ error: { code, message: 'm' } }), { status });

describe('assertErrorDocumented', () => {
  it('passes a documented code under its status', async () => {
    await expect(assertErrorDocumented(document, 'POST', '/api/v2/thing', answer(404, 'install_code_not_found'))).resolves.toBeUndefined();
  });

  it('fails an undocumented code, and a documented code under another status', async () => {
    await expect(assertErrorDocumented(document, 'POST', '/api/v2/thing', answer(404, 'activation_not_found'))).rejects.toThrow(/do not document/);
    await expect(assertErrorDocumented(document, 'POST', 'http://x/api/v2/thing?y=1', answer(409, 'install_code_not_found'))).rejects.toThrow(/409/);
  });

  it('fails an error answer without the envelope on a documented route', async () => {
    await expect(assertErrorDocumented(document, 'POST', '/api/v2/thing', new Response('oops', { status: 500 }))).rejects.toThrow(/no envelope/);
  });

  it('leaves unknown routes and methods alone', async () => {
    await expect(assertErrorDocumented(document, 'GET', '/api/v2/thing', answer(405, 'method_not_allowed'))).resolves.toBeUndefined();
    await expect(assertErrorDocumented(document, 'GET', '/nope', answer(404, 'not_found'))).resolves.toBeUndefined();
  });
});
