import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { negotiateEncoding } from '../../src/http/compressed-body.js';
import { useTestApp } from '../support/test-app.js';

const t = useTestApp();

const scalarDist = dirname(createRequire(import.meta.url).resolve('@scalar/api-reference'));
const scalarVersion = (
  JSON.parse(await readFile(join(scalarDist, '..', 'package.json'), 'utf8')) as { version: string }
).version;
const scalarBundle = await readFile(join(scalarDist, 'browser', 'standalone.js'));

const get = (path: string, acceptEncoding?: string) =>
  t.request(path, acceptEncoding === undefined ? {} : { headers: { 'accept-encoding': acceptEncoding } });
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe('the reference page, its document and its bundle', () => {
  it('/docs names its language and an icon, and links the bundle under a versioned URL', async () => {
    const html = await (await get('/docs')).text();
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<link rel="icon" href="data:," />');
    expect(html).toContain(`<script src="/docs/scalar.js?v=${scalarVersion}" defer>`);
  });

  it('/docs paints without Scalar: the title, the introduction, the tags and every operation, rendered on the server', async () => {
    const html = await (await get('/docs')).text();
    const document = (await (await get('/openapi.json')).json()) as {
      info: { title: string };
      tags: { name: string }[];
      paths: Record<string, Record<string, { summary: string }>>;
    };
    expect(html).toContain(`<h1>${document.info.title}</h1>`);
    // The sidebar as Scalar's starts: the introduction, each tag (collapsed), the models.
    expect(html).toContain(
      `<ul>${['Introduction', ...document.tags.map((tag) => tag.name), 'Models'].map((entry) => `<li>${entry}</li>`).join('')}</ul>`,
    );
    expect(html).toContain(
      'hands short-lived <strong>install codes</strong> to people on the page <code>GET /slowdns</code>',
    );
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item))
        expect(html).toContain(` ${operation.summary.replace(/'/g, '&#39;')}</li>`);
    }
    // The bundle does not hold up the first paint, and the document is fetched beside it rather than after it.
    expect(html).toContain('<link rel="preload" href="/openapi.json" as="fetch" crossorigin />');
    expect(html).toMatch(/<script type="module">[^<]*Scalar\.createApiReference/);
  });

  it('/openapi.json is compressed too, and decodes to the document', async () => {
    const res = await get('/openapi.json', 'br');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('content-encoding')).toBe('br');
    const document = JSON.parse(brotliDecompressSync(await bytes(res)).toString());
    expect(document).toEqual(await (await get('/openapi.json')).json());
    expect(document.info.title).toBe('SlowDNS activation service');
  });

  it('the versioned bundle is cached for good, in brotli when the browser takes it, and decodes to Scalar’s file', async () => {
    const res = await get(`/docs/scalar.js?v=${scalarVersion}`, 'gzip, deflate, br, zstd');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
    const body = await bytes(res);
    expect(body.length).toBeLessThan(scalarBundle.length / 3);
    expect(brotliDecompressSync(body).equals(scalarBundle)).toBe(true);
  });

  it('gzip for a client without brotli, the plain file for one that accepts neither', async () => {
    const gzipped = await get(`/docs/scalar.js?v=${scalarVersion}`, 'gzip');
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(await bytes(gzipped)).equals(scalarBundle)).toBe(true);
    const plain = await get(`/docs/scalar.js?v=${scalarVersion}`, 'identity');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect((await bytes(plain)).equals(scalarBundle)).toBe(true);
  });

  it('an unversioned or outdated bundle URL is revalidated, not kept', async () => {
    expect((await get('/docs/scalar.js')).headers.get('cache-control')).toBe('no-cache');
    expect((await get('/docs/scalar.js?v=0.0.0')).headers.get('cache-control')).toBe('no-cache');
  });

  it('the page script is compressed too', async () => {
    const res = await get('/slowdns/app.js', 'br');
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(brotliDecompressSync(await bytes(res)).toString()).toContain('/api/v2/slowdns/code/issue');
  });
});

describe('Accept-Encoding negotiation', () => {
  it.each([
    ['gzip, deflate, br', 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0.0, br;q=0.5', 'br'],
    ['*', 'gzip'],
    ['identity', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j → %s', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });
});
