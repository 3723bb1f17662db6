import { describe, expect, it } from 'vitest';
import { postJson, useTestApp } from '../support/test-app.js';
import { ADMIN_TOKEN } from './admin-requests.js';

type Json = Record<string, any>;

const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** DESIGN §23: one control-character rule for every text field of every admin request body, before the field's own rule. */
describe('control characters in admin request bodies', () => {
  const t = useTestApp({ ADMIN_TOKEN });
  const resolve = (schema: Json): Json =>
    schema.$ref ? resolve(t.document.components!.schemas![schema.$ref.split('/').at(-1)!] as Json) : schema;

  /** Every text field of a body schema, as a path to it and a body holding `value` there (arrays: their first item). */
  const textFields = (schema: Json, path: string[] = []): { path: string[]; body: (value: string) => unknown }[] => {
    const s = resolve(schema);
    const variants: Json[] = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
    if (variants.length) return variants.flatMap((v) => textFields(v, path));
    if (s.type === 'string') return [{ path, body: (value) => value }];
    if (s.type === 'array')
      return textFields(s.items, [...path, '0']).map((f) => ({ path: f.path, body: (v) => [f.body(v)] }));
    if (s.type === 'object' || s.properties)
      return Object.entries((s.properties ?? {}) as Record<string, Json>).flatMap(([name, property]) =>
        textFields(property, [...path, name]).map((f) => ({ path: f.path, body: (v) => ({ [name]: f.body(v) }) })),
      );
    return [];
  };

  /** The admin operations with a JSON body, each with a concrete path (placeholders filled) and its text fields. */
  const operations = () =>
    Object.entries(t.document.paths as Record<string, Json>)
      .filter(([path]) => path.startsWith('/api/v2/admin/'))
      .flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([, op]) => (op as Json).requestBody?.content?.['application/json'])
          .map(([method, op]) => ({
            at: `${method.toUpperCase()} ${path}`,
            method: method.toUpperCase(),
            url: path.replace(/\{[^}]+\}/g, 'x_0000000000000000'),
            fields: textFields((op as Json).requestBody.content['application/json'].schema),
          })),
      );

  it('reaches every admin body with text in it', () => {
    const withText = operations().filter((o) => o.fields.length > 0);
    expect(withText.length).toBeGreaterThanOrEqual(8);
    const names = withText.flatMap((o) => o.fields.map((f) => `${o.at} ${f.path.join('.')}`));
    for (const expected of [
      'POST /api/v2/admin/webhooks url',
      'POST /api/v2/admin/webhooks description',
      'POST /api/v2/admin/webhooks events.0',
      'POST /api/v2/admin/tokens name',
    ])
      expect(names).toContain(expected);
  });

  it('a NUL or another C0 control in any text field of any admin body is 400 validation_failed naming the field, never a 500', async () => {
    const answers: string[] = [];
    for (const { at, method, url, fields } of operations()) {
      for (const field of fields) {
        for (const value of ['a\u0000b', 'vpn1\u0001', '\u001fx', 'line\nbreak']) {
          const init = postJson(field.body(value), auth);
          const res = await t.request(url, { ...init, method });
          const body = await res.json();
          const name = field.path.join('.');
          answers.push(`${at} ${name} ${res.status} ${body.error?.code} ${body.error?.message.includes(`${name}:`)}`);
        }
      }
    }
    expect(answers.filter((a) => !a.endsWith(' 400 validation_failed true'))).toEqual([]);
    expect(answers.length).toBeGreaterThanOrEqual(4 * 17);
    expect(t.logs.map((line) => JSON.parse(line)).filter((l) => l.level === 'error')).toEqual([]);
  });

  it('a NUL in a webhook description is refused before the URL is judged, and nothing is created', async () => {
    const res = await t.request(
      '/api/v2/admin/webhooks',
      postJson({ url: 'https://hooks.example.net/x', events: ['*'], description: 'ops\u0000' }, auth),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('validation_failed');
    const list = await (await t.request('/api/v2/admin/webhooks', { headers: auth })).json();
    expect(list.data.items).toEqual([]);
  });

  it('a body nested 30000 arrays or 8000 objects deep is 400 validation_failed, never a 500', async () => {
    const deepArrays = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
    const deepObjects = `${'{"a":'.repeat(8000)}1${'}'.repeat(8000)}`;
    for (const [url, method] of [
      ['/api/v2/admin/install-codes', 'POST'],
      ['/api/v2/admin/webhooks', 'POST'],
      ['/api/v2/admin/tokens', 'POST'],
    ] as const) {
      for (const body of [deepArrays, deepObjects]) {
        const res = await t.request(url, { method, headers: { ...auth, 'content-type': 'application/json' }, body });
        expect(res.status).toBe(400);
        const answer = await res.json();
        expect(answer.error.code).toBe('validation_failed');
        expect(answer.error.message).toContain('nested');
      }
    }
    expect(t.logs.map((line) => JSON.parse(line)).filter((l) => l.level === 'error')).toEqual([]);
  });

  it('a body nested as deep as the limit allows is judged by its schema as before', async () => {
    const res = await t.request(
      '/api/v2/admin/install-codes',
      postJson({ uses: 2, tags: { env: 'prod' }, description: [[[[['x']]]]] }, auth),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('description');
  });
});
