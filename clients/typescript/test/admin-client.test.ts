import { describe, expect, it } from 'vitest';
import { installCodes } from '../../../src/db/schema.js';
import { ADMIN_TOKEN } from '../../../test/admin/admin-requests.js';
import { fetchChecked, useTestApp } from '../../../test/support/test-app.js';
import { createAdminClient, IDEMPOTENCY_KEY } from '../src/index.js';

describe('the admin client: an Idempotency-Key on every create, the same one on each retry', () => {
  const t = useTestApp({ ADMIN_TOKEN });
  const baseUrl = 'http://localhost:8080';
  const env = { incoming: { socket: { remoteAddress: '203.0.113.10' } } };

  /** The app behind a fetch that loses the first answer (the change is made, the client hears a network error), and keeps every key it saw. */
  function losingFirstAnswer() {
    const keys: (string | null)[] = [];
    const fetch = async (request: Request) => {
      keys.push(request.headers.get(IDEMPOTENCY_KEY));
      const answer = await fetchChecked(t.app, request, env);
      if (keys.length === 1) throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
      return answer;
    };
    return { keys, fetch };
  }

  it('a create whose answer is lost is retried with its key and answers the one code made', async () => {
    const transport = losingFirstAnswer();
    const admin = createAdminClient({
      baseUrl,
      token: ADMIN_TOKEN,
      fetch: transport.fetch,
      retry: { maxRetries: 2, baseDelayMs: 1 },
    });
    const { data, response } = await admin.POST('/api/v2/admin/install-codes', {
      body: { uses: 2, require_approval: false },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(transport.keys).toHaveLength(2);
    expect(transport.keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(transport.keys[1]).toBe(transport.keys[0]);
    const stored = await t.database.db.select().from(installCodes);
    expect(stored.map((code) => code.id)).toEqual([data!.data.install_code_id]);
  });

  it('each create gets a key of its own: two creates make two codes', async () => {
    const keys: (string | null)[] = [];
    const admin = createAdminClient({
      baseUrl,
      token: ADMIN_TOKEN,
      fetch: async (request) => {
        keys.push(request.headers.get(IDEMPOTENCY_KEY));
        return fetchChecked(t.app, request, env);
      },
    });
    await admin.POST('/api/v2/admin/install-codes', { body: { uses: 2, require_approval: false } });
    await admin.POST('/api/v2/admin/install-codes', { body: { uses: 2, require_approval: false } });
    await admin.GET('/api/v2/admin/install-codes', { params: { query: {} } });
    expect(new Set(keys.slice(0, 2)).size).toBe(2);
    expect(keys[2]).toBeNull();
    expect(await t.database.db.select().from(installCodes)).toHaveLength(2);
  });

  it('a 503 is retried with the same key, after its Retry-After', async () => {
    const keys: (string | null)[] = [];
    const admin = createAdminClient({
      baseUrl,
      token: ADMIN_TOKEN,
      retry: { maxRetries: 1, baseDelayMs: 1 },
      fetch: async (request) => {
        keys.push(request.headers.get(IDEMPOTENCY_KEY));
        if (keys.length === 1)
          return Response.json(
            { error: { code: 'service_unavailable', message: 'The database is away.' } },
            { status: 503, headers: { 'retry-after': '0' } },
          );
        return fetchChecked(t.app, request, env);
      },
    });
    const { response } = await admin.POST('/api/v2/admin/install-codes', {
      body: { uses: 2, require_approval: false },
    });
    expect(response.status).toBe(201);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });
});
