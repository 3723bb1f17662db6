import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { fillFleet } from '../support/fleet-rows.js';
import { useTestApp } from '../support/test-app.js';
import { queryRows } from '../support/test-database.js';
import { ADMIN_TOKEN, adminList, allPages } from './admin-requests.js';

const ndjson = { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'application/x-ndjson' };

/** The lines of an NDJSON answer, parsed; its body must end with a newline (or be empty). */
async function lines(res: Response): Promise<Record<string, any>[]> {
  const text = await res.text();
  if (text !== '') expect(text.endsWith('\n')).toBe(true);
  return text === ''
    ? []
    : text
        .slice(0, -1)
        .split('\n')
        .map((line) => JSON.parse(line));
}

describe('admin lists as NDJSON (Accept: application/x-ndjson): every matching row, one object per line', () => {
  const t = useTestApp({ ADMIN_TOKEN });

  it('exports 10,000 activations, newest first, each as the list shows it, none repeated or missing', async () => {
    await fillFleet(t.database.db, 10_000, t.clock.now());
    const res = await t.request('/api/v2/admin/activations', { headers: ndjson });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    const items = await lines(res);
    expect(items.length).toBe(10_000);
    const stored = await queryRows<{ id: string }>(
      t.database.db,
      sql`select id from activations order by created_at desc, id desc`,
    );
    expect(items.map((item) => item.activation_id)).toEqual(stored.map((row) => row.id));
    // Each line is an item as a page's `items` holds it.
    const page = await adminList(t, 'activations', { limit: 3 });
    expect(items.slice(0, 3)).toEqual(page.items);
  });

  it('every list exports, byte for byte, the items of its JSON pages one per line, over several pages', async () => {
    // More than two export pages of each list, with what JSON text may write differently: tags whose keys
    // look like array indexes, text with quotes, backslashes, control characters and characters beyond
    // ASCII, JSON numbers as jsonb keeps them (86400.0, 1.50), a report with arrays.
    await fillFleet(t.database.db, 1_200, t.clock.now());
    const awkward = JSON.stringify({ b: 'é "q" \\ \u0001 \n 😀', 10: 'x', 2: 'y', a: '' });
    await t.database.db.execute(sql`update activations set tags = ${awkward}::jsonb where right(id, 1) in ('1', 'a')`);
    await t.database.db.execute(sql`update servers set tags = ${awkward}::jsonb where right(id, 1) = '2'`);
    const report =
      '{"uptime_seconds": 86400.0, "services": [{"name": "slowdns-server.service", "state": "active"}, {"name": "a@b", "state": "failed"}], "agent_version": "1.0.0"}';
    await t.database.db.execute(
      sql`update servers set last_report = ${report}::jsonb where right(id, 1) in ('3', 'b')`,
    );
    await t.database.db.execute(sql`update install_codes set tags = ${awkward}::jsonb where right(id, 1) = '4'`);
    const now = t.clock.now().toISOString();
    const text = 'ré "\\\t\u0002 ';
    await t.database.db.execute(
      sql`insert into events (type, occurred_at, actor, install_code_id, data)
          select 'install_code.issued', ${now}::timestamptz - make_interval(secs => i), 'operator',
                 'ic_' || lpad(to_hex(i), 16, '0'), jsonb_build_object('reason', ${text} || i, 'n', 1.50, 'ok', i % 2 = 0)
          from generate_series(1, 1200) i`,
    );
    await t.database.db.execute(
      sql`insert into rate_limit_overrides (id, subject, value, subject_key, limit_name, quota, expires_at, reason, created_at, created_by)
          select 'rlo_' || lpad(to_hex(i), 16, '0'), 'ip', '198.51.' || (i / 256) || '.' || (i % 256),
                 '198.51.' || (i / 256) || '.' || (i % 256), 'issue-ip-hour', 10 + i % 50,
                 ${now}::timestamptz + interval '1 day', ${'ü "q" \\ '} || i, ${now}::timestamptz - make_interval(secs => i), 'root'
          from generate_series(1, 1200) i`,
    );
    for (const list of ['install-codes', 'activations', 'servers', 'events', 'rate-limit-overrides']) {
      const res = await t.request(`/api/v2/admin/${list}`, { headers: ndjson });
      const exported = await res.text();
      const pages = await allPages(t, list, { limit: 200 });
      expect({ list, rows: pages.length }).toEqual({ list, rows: 1_200 });
      expect({ list, same: exported === pages.map((item) => `${JSON.stringify(item)}\n`).join('') }).toEqual({
        list,
        same: true,
      });
    }
  });

  it('applies the filters, starts at the cursor, and ignores limit', async () => {
    await fillFleet(t.database.db, 1_400, t.clock.now());
    const filtered = await lines(
      await t.request('/api/v2/admin/servers?q=example.net&ip=10.0.0.0/16&limit=1', { headers: ndjson }),
    );
    expect(filtered.length).toBeGreaterThan(500);
    expect(filtered.every((s) => s.hostname.endsWith('.example.net') && s.public_ip.startsWith('10.0.'))).toBe(true);
    const first = await adminList(t, 'servers', { q: 'example.net', ip: '10.0.0.0/16', limit: 10 });
    const rest = await lines(
      await t.request(`/api/v2/admin/servers?q=example.net&ip=10.0.0.0/16&cursor=${first.next_cursor}`, {
        headers: ndjson,
      }),
    );
    expect([...first.items, ...rest]).toEqual(filtered);
  });

  it('an empty admin list answers an empty NDJSON body', async () => {
    for (const list of ['install-codes', 'activations', 'servers', 'events', 'rate-limit-overrides']) {
      const res = await t.request(`/api/v2/admin/${list}`, { headers: ndjson });
      expect({ list, status: res.status, type: res.headers.get('content-type'), body: await res.text() }).toEqual({
        list,
        status: 200,
        type: 'application/x-ndjson',
        body: '',
      });
    }
  });

  it('an admin list answers each of its rows once as NDJSON', async () => {
    await fillFleet(t.database.db, 30, t.clock.now());
    for (const [list, key] of [
      ['install-codes', 'install_code_id'],
      ['activations', 'activation_id'],
      ['servers', 'server_id'],
    ] as const) {
      const items = await lines(await t.request(`/api/v2/admin/${list}`, { headers: ndjson }));
      expect(new Set(items.map((item) => item[key])).size).toBe(30);
    }
  });

  it('without the NDJSON Accept (or with q=0) a list answers one page of JSON', async () => {
    await fillFleet(t.database.db, 60, t.clock.now());
    for (const accept of ['application/json', 'application/x-ndjson;q=0, application/json', '*/*']) {
      const res = await t.request('/api/v2/admin/activations', { headers: { ...ndjson, accept } });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect((await res.json()).data.items.length).toBe(50);
    }
  });

  it('a bad cursor or filter asked as NDJSON is answered with the JSON envelope', async () => {
    for (const query of ['cursor=bm90LWEtY3Vyc29y', 'ip=10.0.0.1/8', 'q=ab']) {
      const res = await t.request(`/api/v2/admin/activations?${query}`, { headers: ndjson });
      expect({
        status: res.status,
        type: res.headers.get('content-type'),
        code: (await res.json()).error.code,
      }).toEqual({ status: 400, type: 'application/json', code: 'validation_failed' });
    }
  });

  it('streams one page (500 rows, one statement) per chunk', async () => {
    await fillFleet(t.database.db, 1_300, t.clock.now());
    const res = await t.request('/api/v2/admin/activations', { headers: ndjson });
    const reader = res.body!.getReader();
    const chunks: number[] = [];
    for (let read = await reader.read(); !read.done; read = await reader.read())
      chunks.push(new TextDecoder().decode(read.value).split('\n').length - 1);
    expect(chunks).toEqual([500, 500, 300]);
  });
});
