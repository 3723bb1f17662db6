import type { OpenApiDocument } from '../../src/openapi-document.js';

type Json = Record<string, any>;

export type AdminScope = 'read' | 'write' | 'root';

export interface OpenApiParameter {
  in: string;
  name: string;
  required?: boolean;
  example?: unknown;
  schema?: Json;
}

/** One admin operation as the served document states it: what a test needs to call it and to know what it asks. */
export interface AdminOperation {
  /** Upper case, as `fetch` takes it. */
  method: string;
  /** The document's template, e.g. `/api/v2/admin/servers/{server_id}`. */
  template: string;
  /** The template with each path parameter's example, e.g. `/api/v2/admin/servers/srv_…`. */
  path: string;
  operationId: string;
  /** The one scope its security requirement names (`undefined` when it names none: a defect tests assert on). */
  scope: AdminScope | undefined;
  parameters: OpenApiParameter[];
  /** The JSON schema of its request body, `$ref` resolved one level; `undefined` when it takes none. */
  requestBody: Json | undefined;
  /** Whether the document says the body is required. */
  requestBodyRequired: boolean;
}

/** A schema with a `$ref` to the document's components replaced by the component (one level). */
export function resolveSchema(document: OpenApiDocument, schema: Json): Json {
  if (!schema.$ref) return schema;
  const name = String(schema.$ref).split('/').at(-1)!;
  const resolved = (document.components?.schemas as Json | undefined)?.[name];
  if (!resolved) throw new Error(`${schema.$ref} is not in the document's components`);
  return resolved as Json;
}

/**
 * Every operation under /api/v2/admin/ in the document, in the document's order. A route added to the admin
 * API is in the document (auth.test.ts asserts it against the served routes), so a test walking this list
 * covers it without being edited.
 */
export function adminOperations(document: OpenApiDocument): AdminOperation[] {
  return Object.entries(document.paths as Record<string, Record<string, Json>>)
    .filter(([template]) => template.startsWith('/api/v2/admin/'))
    .flatMap(([template, item]) =>
      Object.entries(item).map(([method, op]) => {
        const parameters = (op.parameters ?? []) as OpenApiParameter[];
        const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
          const param = parameters.find((p) => p.in === 'path' && p.name === name);
          const example = param?.schema?.example ?? param?.example;
          if (typeof example !== 'string') throw new Error(`${method} ${template}: no example for {${name}}`);
          return example;
        });
        const body = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
        return {
          method: method.toUpperCase(),
          template,
          path,
          operationId: String(op.operationId),
          scope: op.security?.[0]?.adminToken?.[0] as AdminScope | undefined,
          parameters,
          requestBody: body && resolveSchema(document, body),
          requestBodyRequired: op.requestBody?.required === true,
        };
      }),
    );
}
