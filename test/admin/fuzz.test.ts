import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/test-app.js';
import { adminOperations, type AdminOperation } from './admin-operations.js';
import { ADMIN_TOKEN } from './admin-requests.js';

type Json = Record<string, any>;

/** A small seeded generator (mulberry32): the same seed makes the same requests on every run and database. */
function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return {
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    int: (n: number) => Math.floor(next() * n),
  };
}

/** Times a caller may send: inside the accepted range, at its edges and outside it, in odd spellings. */
const TIMES = [
  '2026-11-22T10:00:00+00:00',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-14:00',
  '9999-12-31T23:59:59Z',
  '1969-12-31T23:59:59Z',
  '1970-01-01T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-11-22T10:00:00.123456789+14:00',
  '2026-11-22',
  '+275760-09-13T00:00:00Z',
];
const TEXTS = [
  '',
  'a',
  'x'.repeat(300),
  '\u0000',
  'e\u202ev',
  'zero\u200bwidth',
  '__proto__',
  'constructor',
  '😀',
  '%',
  "' or 1=1 --",
  '../../etc/passwd',
  '1e309',
  '-1',
  'null',
  'ic_0000000000000000',
  'https://hooks.example.com/x',
  '198.51.100.0/24',
  '::1.2.3.4',
];
const NUMBERS = [0, -1, 1, 1.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 53), 1e308, 1e-300];
const cursor = (position: unknown) => Buffer.from(JSON.stringify(position)).toString('base64url');
const CURSORS = [
  cursor({ t: 2.5340232e14, id: 'ic_0000000000000000' }),
  cursor({ t: -1, id: 1 }),
  cursor({ t: 1e20, id: 'x' }),
  cursor({ t: 'x', id: 1 }),
  cursor({ t: 1, id: { a: 1 } }),
  cursor([]),
  'not-base64-json',
  'A'.repeat(256),
  '%%%',
];

type Random = ReturnType<typeof seeded>;

/** The fuzzer's values, from the document's schemas: mostly of the schema's shape, often at or past its edges. */
function valueFor(document: Json, random: Random, schema: Json | undefined, depth = 0): unknown {
  const resolve = (s: Json): Json =>
    s?.$ref ? resolve(document.components.schemas[String(s.$ref).split('/').at(-1)!]) : (s ?? {});
  const s = resolve(schema ?? {});
  if (random.chance(0.1)) return anyValue(random, depth);
  const variants = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
  if (variants.length) return valueFor(document, random, random.pick(variants), depth + 1);
  if (s.enum && random.chance(0.7)) return random.pick(s.enum as unknown[]);
  if (s.const !== undefined) return s.const;
  switch (s.type) {
    case 'string':
      if (s.format === 'date-time') return random.pick(TIMES);
      if (s.example !== undefined && random.chance(0.5)) return s.example;
      return random.pick(TEXTS);
    case 'integer':
    case 'number':
      return random.pick([s.minimum, s.maximum, (s.minimum ?? 0) - 1, (s.maximum ?? 0) + 1, s.example, ...NUMBERS]);
    case 'boolean':
      return random.chance(0.8) ? random.chance(0.5) : 'true';
    case 'array': {
      const length = random.chance(0.1) ? (s.maxItems ?? 20) + 1 : random.int(3);
      return Array.from({ length }, () => valueFor(document, random, s.items, depth + 1));
    }
    default: {
      const object: Json = {};
      for (const [name, property] of Object.entries((s.properties ?? {}) as Json)) {
        if ((s.required ?? []).includes(name) ? random.chance(0.9) : random.chance(0.5))
          object[name] = valueFor(document, random, property, depth + 1);
      }
      if (s.additionalProperties && random.chance(0.5))
        object[random.pick(['env', 'Env', 'a.b', 'k'.repeat(40)])] = valueFor(document, random, s.additionalProperties);
      if (random.chance(0.1)) object.unexpected = anyValue(random, depth + 1);
      return object;
    }
  }
}

/** Any JSON value at all, nested now and then. */
function anyValue(random: Random, depth: number): unknown {
  const kind = random.int(depth > 3 ? 4 : 6);
  if (kind === 0) return null;
  if (kind === 1) return random.pick(TEXTS);
  if (kind === 2) return random.pick(NUMBERS);
  if (kind === 3) return random.chance(0.5);
  if (kind === 4) return [anyValue(random, depth + 1)];
  return { [random.pick(TEXTS)]: anyValue(random, depth + 1) };
}

/** A body as text: mostly the schema's JSON, sometimes what no schema takes (deep nesting, broken JSON, `__proto__`). */
function bodyFor(document: Json, random: Random, operation: AdminOperation): string | undefined {
  if (!operation.requestBody && random.chance(0.8)) return undefined;
  const odd = random.int(12);
  if (odd === 0) return `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
  if (odd === 1) return `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
  if (odd === 2) return '{"uses": 2,';
  if (odd === 3) return '{"tags": {"__proto__": "x"}, "__proto__": {"admin": true}}';
  return JSON.stringify(valueFor(document, random, operation.requestBody));
}

/** A query string from the operation's parameters: schema values, times at the edges, forged cursors, repeats. */
function queryFor(document: Json, random: Random, operation: AdminOperation): string {
  const query = new URLSearchParams();
  for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
    if (!random.chance(0.5)) continue;
    const value =
      parameter.name === 'cursor'
        ? random.pick(CURSORS)
        : ['since', 'until'].includes(parameter.name)
          ? random.pick(TIMES)
          : valueFor(document, random, parameter.schema);
    for (const item of Array.isArray(value) ? value : [value])
      query.append(parameter.name, typeof item === 'string' ? item : JSON.stringify(item));
  }
  return query.size ? `?${query}` : '';
}

/** A path: the document's example ids, or something else in their place. */
function pathFor(random: Random, operation: AdminOperation): string {
  if (random.chance(0.6)) return operation.path;
  return operation.template.replace(/\{(\w+)\}/g, () => encodeURIComponent(random.pick(TEXTS) || 'x'));
}

/**
 * The admin API fuzzed from its own document (bodies, queries, cursors, times, nesting), a fixed number of
 * requests per operation from a fixed seed: no answer is a 500, and each is validated against the document as
 * every answer of the suite is.
 */
describe('the admin API fuzzed from its document', () => {
  const t = useTestApp({ ADMIN_TOKEN });
  const REQUESTS_PER_OPERATION = 12;

  it('answers no request with a 5xx', async () => {
    const document = t.document as Json;
    const random = seeded(58);
    const failures: string[] = [];
    let sent = 0;
    for (const operation of adminOperations(t.document)) {
      for (let i = 0; i < REQUESTS_PER_OPERATION; i++) {
        const url = `${pathFor(random, operation)}${queryFor(document, random, operation)}`;
        const body = ['GET', 'HEAD'].includes(operation.method) ? undefined : bodyFor(document, random, operation);
        const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` };
        if (body !== undefined) headers['content-type'] = 'application/json';
        if (operation.method === 'GET' && random.chance(0.2)) headers.accept = 'application/x-ndjson';
        const res = await t.request(url, { method: operation.method, headers, body });
        await res.text();
        sent++;
        if (res.status >= 500) failures.push(`${operation.method} ${url} ${body?.slice(0, 200) ?? ''} → ${res.status}`);
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(300);
    expect(t.logs.map((line) => JSON.parse(line)).filter((l) => l.level === 'error')).toEqual([]);
    // About 8 s alone on PostgreSQL; the room is for a machine shared with the rest of the suite.
  }, 120_000);
});
