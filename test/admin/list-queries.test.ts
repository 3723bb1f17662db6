import { describe, expect, it } from 'vitest';
import { createCode } from '../fleet-codes/fleet-requests.js';
import { useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN } from './admin-requests.js';

type Json = Record<string, any>;
interface QueryParameter {
  name: string;
  in: string;
  example?: unknown;
  schema: Json;
}

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('admin list queries as the document states them', () => {
  const t = useTestApp({ ADMIN_TOKEN });
  const resolve = (schema: Json): Json =>
    schema.$ref ? (t.document.components!.schemas![schema.$ref.split('/').at(-1)!] as Json) : schema;
  /** The admin lists the served document names, with their query parameters. */
  const lists = () =>
    Object.entries(t.document.paths as Record<string, Json>)
      .filter(
        ([path, item]) =>
          path.startsWith('/api/v2/admin/') &&
          (item.get?.parameters as QueryParameter[] | undefined)?.some((p) => p.name === 'cursor'),
      )
      .map(([path, item]) => ({
        path,
        parameters: (item.get.parameters as QueryParameter[]).filter((p) => p.in === 'query'),
      }));

  it('covers every admin list', () => {
    expect(
      lists()
        .map((l) => l.path)
        .sort(),
    ).toEqual([
      '/api/v2/admin/activations',
      '/api/v2/admin/events',
      '/api/v2/admin/install-codes',
      '/api/v2/admin/install-codes/{install_code_id}/pending-prechecks',
      '/api/v2/admin/rate-limit-overrides',
      '/api/v2/admin/servers',
    ]);
  });

  it('a control character (NUL, another C0 control or DEL) in any query parameter is 400 validation_failed naming it, never a 500', async () => {
    const answers: string[] = [];
    for (const { path, parameters } of lists()) {
      for (const { name } of parameters) {
        for (const value of ['a%00', 'vpn1%01', '%1Fx', 'x%7F']) {
          // As a page and as the NDJSON export alike: refused before anything is streamed, as the JSON envelope.
          for (const accept of ['application/json', 'application/x-ndjson']) {
            const res = await t.request(`${path}?${name}=${value}`, { headers: { ...auth, accept } });
            const body = await res.json();
            answers.push(
              `${path}?${name}=${value} ${res.status} ${body.error?.code} ${body.error?.message.includes(name)}`,
            );
          }
        }
      }
    }
    expect(answers.filter((a) => !a.endsWith(' 400 validation_failed true'))).toEqual([]);
    expect(answers.length).toBeGreaterThanOrEqual(2 * 4 * 28);
    expect(t.logs.map((line) => JSON.parse(line)).filter((l) => l.level === 'error')).toEqual([]);
  });

  it('the text filters share one schema in the document, whose pattern refuses control characters and admits printable text', () => {
    const textFilters = lists().flatMap(({ path, parameters }) =>
      parameters
        .filter((p) => ['hostname', 'machine_id', 'ssh_fingerprint', 'public_ip', 'hint'].includes(p.name))
        .map((p) => ({ at: `${path}?${p.name}`, schema: p.schema })),
    );
    expect(textFilters.length).toBe(10);
    for (const { at, schema } of textFilters)
      expect({ at, schema }).toEqual({ at, schema: { $ref: '#/components/schemas/AdminTextFilter' } });
    const shared = resolve({ $ref: '#/components/schemas/AdminTextFilter' });
    // The search's q (at least 3 characters) and ip (an address or network) narrow the shared schema, with its pattern.
    const searches = lists().flatMap(({ parameters }) => parameters.filter((p) => ['q', 'ip'].includes(p.name)));
    expect(searches.length).toBe(6);
    for (const { schema } of searches) expect(schema.pattern).toBe(shared.pattern);
    const pattern = new RegExp(shared.pattern, 'u');
    for (const text of ['vpn1.example.net', '203.0.113.7', '2001:db8::1', 'HX3W8N', "Jane's box ü"])
      expect(pattern.test(text), text).toBe(true);
    for (const control of ['\u0000', '\u0001', '\t', '\n', '\u001f', '\u007f'])
      expect(pattern.test(`a${control}b`), JSON.stringify(control)).toBe(false);
  });

  it('the example cursor of every list, in its query parameter and its next_cursor, is a cursor that list accepts', async () => {
    const tried: string[] = [];
    // The machines waiting on one code: a code of approval that exists.
    const { install_code_id } = await createCode(t, { uses: 2, require_approval: true });
    for (const { path, parameters } of lists()) {
      const cursor = parameters.find((p) => p.name === 'cursor')!;
      const page = resolve(
        (t.document.paths as Record<string, Json>)[path]!.get.responses['200'].content['application/json'].schema,
      );
      const data = resolve(resolve(page).properties.data);
      for (const example of [cursor.example ?? resolve(cursor.schema).example, data.properties.next_cursor.example]) {
        expect(example, path).toEqual(expect.any(String));
        const concrete = path.replace('{install_code_id}', install_code_id);
        const res = await t.request(`${concrete}?cursor=${encodeURIComponent(example)}`, { headers: auth });
        tried.push(`${path} ${res.status}`);
      }
    }
    expect(tried).toEqual(lists().flatMap(({ path }) => [`${path} 200`, `${path} 200`]));
  });
});
