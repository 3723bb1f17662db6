import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  policiesFor,
  rateLimitPolicies,
  rateLimitTable,
  type RateLimitedRoute,
} from '../../src/domain/rate-limits/policies.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** The routes of the API document; the console's sign-in (an HTML form, not an API) is left out of it. */
const routes: Record<
  Exclude<RateLimitedRoute, 'console-sign-in'>,
  { method: 'get' | 'post'; path: string; success: string }
> = {
  page: { method: 'get', path: '/slowdns', success: '200' },
  issue: { method: 'post', path: '/api/v2/slowdns/code/issue', success: '201' },
  precheck: { method: 'post', path: '/api/v2/slowdns/install/precheck', success: '200' },
  activate: { method: 'post', path: '/api/v2/slowdns/install/activate', success: '200' },
  register: { method: 'post', path: '/register', success: '201' },
  checkin: { method: 'post', path: '/checkin', success: '200' },
};

const CLIENT_ADDRESS_NOTE = 'The client IP address is the socket peer';

describe('the limits are documented from the one table', () => {
  let t: TestApp;
  let doc: {
    paths: Record<
      string,
      Record<
        'get' | 'post',
        {
          description: string;
          responses: Record<string, { headers?: Record<string, { $ref?: string; description?: string }> }>;
        }
      >
    >;
  };
  beforeAll(async () => {
    t = await createTestApp();
    doc = await (await t.request('/openapi.json')).json();
  });
  afterAll(() => t.close());

  it('names every policy once, with a unique name', () => {
    expect(new Set(rateLimitPolicies.map((p) => p.name)).size).toBe(rateLimitPolicies.length);
  });

  it('gives each limited route its limits table in the description and the RateLimit headers on its 2xx and 4xx answers', () => {
    for (const [route, { method, path, success }] of Object.entries(routes) as [
      keyof typeof routes,
      (typeof routes)[keyof typeof routes],
    ][]) {
      const op = doc.paths[path]![method];
      expect(op.description).toContain(rateLimitTable(route));
      const policyExample = policiesFor(route)
        .map((p) => `"${p.name}";q=${p.quota};w=${p.windowSeconds}`)
        .join(', ');
      expect(op.responses[success]!.headers!['RateLimit-Policy']!.description).toContain(policyExample);
      for (const [status, response] of Object.entries(op.responses).filter(([s]) => /^[24]/.test(s))) {
        expect({
          status,
          policy: response.headers?.['RateLimit-Policy']?.$ref,
          state: response.headers?.RateLimit?.$ref,
        }).toEqual({
          status,
          policy: '#/components/headers/RateLimit-Policy',
          state: '#/components/headers/RateLimit',
        });
      }
      // The page's 429 is itself a page, with the page's own headers (its language among them: the
      // language chosen, the cookie a ?lang= link sets, and what the answer varies on).
      const pageHeaders =
        route === 'page'
          ? ['Cache-Control', 'Content-Language', 'Content-Security-Policy', 'Referrer-Policy', 'Set-Cookie', 'Vary']
          : [];
      expect(Object.keys(op.responses['429']!.headers!).sort()).toEqual(
        [
          ...pageHeaders,
          'RateLimit',
          'RateLimit-Policy',
          'Retry-After',
          'X-Content-Type-Options',
          'X-Request-Id',
          'traceresponse',
        ].sort(),
      );
    }
  });

  it('states once per description how the client IP address is found, on the routes limited per IP', () => {
    for (const [route, { method, path }] of Object.entries(routes) as [
      keyof typeof routes,
      (typeof routes)[keyof typeof routes],
    ][]) {
      const perIp = policiesFor(route).some((p) => p.subject === 'ip') ? 1 : 0;
      expect({ route, notes: doc.paths[path]![method].description.split(CLIENT_ADDRESS_NOTE).length - 1 }).toEqual({
        route,
        notes: perIp,
      });
    }
  });

  it('documents a 429 only on the limited routes', () => {
    const limited = Object.values(routes).map(({ method, path }) => `${method} ${path}`);
    const with429 = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops as Record<string, { responses: Record<string, unknown> }>)
        .filter(([, op]) => op.responses['429'])
        .map(([method]) => `${method} ${path}`),
    );
    expect(with429.sort()).toEqual(limited.sort());
  });

  it('does not document a 429 on confirm and release', () => {
    expect(doc.paths['/api/v2/slowdns/install/confirm']!.post.responses['429']).toBeUndefined();
    expect(doc.paths['/api/v2/slowdns/install/release']!.post.responses['429']).toBeUndefined();
  });

  it('has the table of every limit in docs/integrators.md as the table renders it', async () => {
    const guide = await readFile('docs/integrators.md', 'utf8');
    const section = guide.slice(
      guide.indexOf('## Rate limits'),
      guide.indexOf('\n## ', guide.indexOf('## Rate limits') + 1),
    );
    // Biome pads a markdown table's cells and dashes: compare the cells, not the padding.
    const cells = (table: string) =>
      table
        .split('\n')
        .filter((line) => line.startsWith('|'))
        .map((line) => line.replace(/ *\| */g, '|').replace(/-{3,}/g, '---'));
    expect(cells(section)).toEqual(expect.arrayContaining(cells(rateLimitTable())));
    expect(cells(section)).toHaveLength(cells(rateLimitTable()).length);
  });
});
