import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalog } from '../../src/errors.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe('the contract', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('serves at /openapi.json exactly the committed openapi/openapi.json, version 3.1', async () => {
    const served = await (await t.request('/openapi.json')).json();
    const committed = JSON.parse(await readFile('openapi/openapi.json', 'utf8'));
    expect(served).toEqual(committed);
    expect(served.openapi).toMatch(/^3\.1\.\d+$/);
  });

  it('documents every error response with the status the error map gives its code', async () => {
    const doc = await (await t.request('/openapi.json')).json();
    let checked = 0;
    for (const [path, item] of Object.entries<
      Record<
        string,
        { responses: Record<string, { content?: Record<string, { examples?: Record<string, unknown> }> }> }
      >
    >(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          const examples = response.content?.['application/json']?.examples ?? {};
          for (const code of Object.keys(examples)) {
            expect(errorCatalog[code as keyof typeof errorCatalog]?.status, `${method} ${path} ${status} ${code}`).toBe(
              Number(status),
            );
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('gives every operation an operationId, a tag and a summary', async () => {
    const doc = await (await t.request('/openapi.json')).json();
    for (const item of Object.values<Record<string, { operationId?: string; tags?: string[]; summary?: string }>>(
      doc.paths,
    )) {
      for (const op of Object.values(item)) {
        expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
        expect(op.tags?.length).toBeGreaterThan(0);
        expect(op.summary).toBeTruthy();
      }
    }
  });

  it('documents each response header once, as a component, and X-Request-Id on every response', async () => {
    const doc = await (await t.request('/openapi.json')).json();
    const refOf = (h: { $ref?: string } | undefined) => h?.$ref;
    let responses = 0;
    for (const [path, item] of Object.entries<
      Record<string, { responses: Record<string, { headers?: Record<string, { $ref?: string }> }> }>
    >(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          const where = `${method} ${path} ${status}`;
          for (const [name, header] of Object.entries(response.headers ?? {}))
            expect(refOf(header), `${where} ${name}`).toBe(`#/components/headers/${name}`);
          expect(refOf(response.headers?.['X-Request-Id']), where).toBeDefined();
          if (status === '429' || status === '503')
            expect(refOf(response.headers?.['Retry-After']), where).toBeDefined();
          responses += 1;
        }
      }
    }
    expect(responses).toBeGreaterThan(50);
    expect(refOf(doc.paths['/checkin'].post.responses['401'].headers['WWW-Authenticate'])).toBeDefined();
    expect(refOf(doc.components.responses.MethodNotAllowed.headers.Allow)).toBeDefined();
  });
});
