import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';

// The committed document is the served one (test/foundation/openapi.test.ts): its examples are what
// integrators copy and what request generators send, so each must be valid against its own schema.
const document = JSON.parse(readFileSync('openapi/openapi.json', 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(document, 'openapi.json');

type Json = Record<string, unknown>;
const escapePointer = (p: string) => p.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every schema object of the document with its JSON pointer: components, and the inline ones of paths. */
function* schemasIn(node: unknown, at: string[], isSchema: boolean): Generator<[string[], Json]> {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* schemasIn(item, [...at, String(i)], isSchema);
    return;
  }
  const obj = node as Json;
  if (isSchema) yield [at, obj];
  for (const [key, value] of Object.entries(obj)) {
    if (key === 'example' || key === 'examples' || key === 'description') continue;
    const childIsSchema =
      key === 'schema' ||
      (isSchema && (key === 'items' || key === 'not' || key === 'additionalProperties')) ||
      (isSchema && (key === 'anyOf' || key === 'oneOf' || key === 'allOf'));
    if (isSchema && key === 'properties') {
      for (const [name, sub] of Object.entries(value as Json)) yield* schemasIn(sub, [...at, key, name], true);
    } else if (at.length === 2 && at[0] === 'components' && at[1] === 'schemas') {
      yield* schemasIn(value, [...at, key], true);
    } else {
      yield* schemasIn(value, [...at, key], childIsSchema);
    }
  }
}

const validatorAt = (at: string[]) => ajv.getSchema(`openapi.json#/${at.map(escapePointer).join('/')}`)!;

describe('the examples of the document', () => {
  const schemas = [...schemasIn(document, [], false)];

  it('validate against their own schemas: every schema, header and media type example', () => {
    const problems: string[] = [];
    let checked = 0;
    const check = (at: string[], value: unknown) => {
      const validate = validatorAt(at);
      checked += 1;
      if (!validate(value))
        problems.push(`${at.join('.')}: ${JSON.stringify(value).slice(0, 120)} ${ajv.errorsText(validate.errors)}`);
    };
    for (const [at, schema] of schemas) if ('example' in schema) check(at, schema.example);
    for (const [name, header] of Object.entries<Json>(document.components.headers))
      check(['components', 'headers', name, 'schema'], header.example);
    for (const [path, item] of Object.entries<Record<string, Json>>(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const media: [string[], Json][] = [];
        const body = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
        for (const [type, m] of Object.entries(body ?? {}))
          media.push([['paths', path, method, 'requestBody', 'content', type], m]);
        for (const [status, r] of Object.entries(op.responses as Record<string, Json>)) {
          for (const [type, m] of Object.entries((r.content as Record<string, Json>) ?? {}))
            media.push([['paths', path, method, 'responses', status, 'content', type], m]);
        }
        for (const [at, m] of media) {
          if ('example' in m) check([...at, 'schema'], m.example);
          for (const ex of Object.values((m.examples as Record<string, { value: unknown }>) ?? {}))
            check([...at, 'schema'], ex.value);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('give every field, every named schema and every request and response body an example', () => {
    const missing: string[] = [];
    for (const [at, schema] of schemas) {
      const isField = at.at(-2) === 'properties';
      const isNamed = at.length === 3 && at[0] === 'components' && at[1] === 'schemas';
      if ((isField || isNamed) && !('example' in schema) && !('$ref' in schema)) missing.push(at.join('.'));
    }
    for (const [path, item] of Object.entries<Record<string, Json>>(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, r] of Object.entries(op.responses as Record<string, Json>)) {
          for (const [type, m] of Object.entries((r.content as Record<string, Json>) ?? {})) {
            const schema = m.schema as Json;
            const ref = schema.$ref as string | undefined;
            const named = ref ? document.components.schemas[ref.split('/').pop()!] : schema;
            if (!('example' in m) && !('examples' in m) && !('example' in named))
              missing.push(`${method} ${path} ${status} ${type}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
