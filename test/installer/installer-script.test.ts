import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/test-app.js';

const committed = readFileSync(new URL('../../clients/shell/activate.sh', import.meta.url), 'utf8');
const sha256 = createHash('sha256').update(committed).digest('hex');

describe('the served shell client', () => {
  const t = useTestApp({ PUBLIC_BASE_URL: 'https://activation.example.net' });

  it('GET /slowdns/activate.sh serves the committed script as text/plain, never cached stale', async () => {
    const res = await t.request('/slowdns/activate.sh');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.text()).toBe(committed);
  });

  it('GET /slowdns/activate.sh.sha256 answers its SHA-256 in sha256sum format', async () => {
    const res = await t.request('/slowdns/activate.sh.sha256');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(`${sha256}  activate.sh\n`);
  });

  it('both routes are in the OpenAPI document', () => {
    expect(Object.keys(t.document.paths ?? {})).toEqual(
      expect.arrayContaining(['/slowdns/activate.sh', '/slowdns/activate.sh.sha256']),
    );
  });
});
