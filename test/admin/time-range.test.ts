import { describe, expect, it } from 'vitest';
import { postJson, useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN } from './admin-requests.js';

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
const cursor = (position: unknown) => Buffer.from(JSON.stringify(position)).toString('base64url');
const lists = ['install-codes', 'activations', 'servers', 'events', 'rate-limit-overrides'];

/** One bounded range for every time the admin API accepts: outside it, 400 `validation_failed`, never a 500 from the database. */
describe('times outside the accepted range', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  const get = async (path: string, accept = 'application/json') => {
    const res = await t.request(path, { headers: { ...auth, accept } });
    return { status: res.status, code: (await res.json()).error?.code as string | undefined };
  };

  it('since or until before 1970 or after 9999 on every list, and its export, is 400 validation_failed', async () => {
    const answers: string[] = [];
    for (const list of lists) {
      for (const query of [
        'since=0000-01-01T00:00:00Z',
        'until=0000-01-01T00:00:00Z',
        'until=9999-12-31T23:59:59-14:00',
        'since=9999-12-31T23:59:59-14:00',
        'since=1969-12-31T23:59:59Z',
      ]) {
        const { status, code } = await get(`/api/v2/admin/${list}?${query}`);
        answers.push(`${list} ${query} ${status} ${code}`);
      }
    }
    expect(answers.filter((a) => !a.endsWith(' 400 validation_failed'))).toEqual([]);
    expect(await get('/api/v2/admin/events?until=9999-12-31T23:59:59-14:00', 'application/x-ndjson')).toEqual({
      status: 400,
      code: 'validation_failed',
    });
  });

  it('the edges of the range are accepted', async () => {
    for (const list of lists) {
      const res = await t.request(`/api/v2/admin/${list}?since=1970-01-01T00:00:00Z&until=9999-12-31T23:59:59Z`, {
        headers: auth,
      });
      expect(res.status).toBe(200);
    }
  });

  it('a cursor whose time is past the year 9999 is 400, never a 500', async () => {
    for (const list of lists) {
      const id = list === 'events' ? 1 : 'x_0000000000000000';
      const { status } = await get(`/api/v2/admin/${list}?cursor=${cursor({ t: 2.5340232e14, id })}`);
      expect(`${list} ${status}`).toBe(`${list} 400`);
      const last = await get(`/api/v2/admin/${list}?cursor=${cursor({ t: 2.534e14, id })}`);
      expect(`${list} ${last.status}`).toBe(`${list} 200`);
    }
  });

  it('an operator token expiring after the year 9999 is 400 validation_failed and nothing is created', async () => {
    const res = await t.request(
      '/api/v2/admin/tokens',
      postJson({ name: 'far', scope: 'read', expires_at: '9999-12-31T23:59:59-14:00' }, auth),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('validation_failed');
    const list = await (await t.request('/api/v2/admin/tokens', { headers: auth })).json();
    expect(list.data.items.filter((i: { name: string }) => i.name === 'far')).toEqual([]);
  });

  it('a rate-limit override expiring after the year 9999 is 400, never a 500', async () => {
    const res = await t.request(
      '/api/v2/admin/rate-limit-overrides',
      postJson(
        {
          limit_name: 'precheck-ip-day',
          subject: 'ip',
          value: '198.51.100.7',
          limit: 20,
          expires_at: '9999-12-31T23:59:59-14:00',
          reason: 'far',
        },
        auth,
      ),
    );
    expect(res.status).toBe(400);
  });
});
