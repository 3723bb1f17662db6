/**
 * Gives every named schema, every object or array field and every request or response body without one an example composed of its
 * fields' examples (which the schemas in src/schemas/ state, realistic and valid): request generators
 * and the reference then show whole bodies, and no new schema can forget one.
 * test/contract/examples.test.ts checks that each example is valid against its schema.
 */
type Schema = Record<string, unknown> & {
  $ref?: string;
  example?: unknown;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
};

type Media = { schema?: Schema; example?: unknown; examples?: unknown };
type Paths = Record<
  string,
  Record<
    string,
    {
      requestBody?: { content?: Record<string, Media> };
      responses?: Record<string, { content?: Record<string, Media> }>;
    }
  >
>;

export function composeExamples(schemas: Record<string, Schema>, paths: Paths): void {
  const named = (ref: string) => schemas[ref.split('/').pop()!];
  const exampleOf = (schema: Schema | undefined): unknown => {
    if (!schema) return undefined;
    if ('example' in schema) return schema.example;
    if (schema.$ref) return exampleOf(named(schema.$ref));
    if ('const' in schema) return schema.const;
    if (schema.enum) return schema.enum[0];
    if (schema.properties) {
      const entries = Object.entries(schema.properties).map(([name, field]) => [name, exampleOf(field)] as const);
      return entries.some(([, value]) => value === undefined) ? undefined : Object.fromEntries(entries);
    }
    if (schema.items) {
      const item = exampleOf(schema.items);
      return item === undefined ? undefined : [item];
    }
    const first = schema.anyOf?.[0] ?? schema.oneOf?.[0] ?? schema.allOf?.[0];
    return first ? exampleOf(first) : undefined;
  };
  const fill = (schema: Schema): void => {
    for (const field of Object.values(schema.properties ?? {})) fill(field);
    if (schema.items) fill(schema.items);
    if (!('example' in schema) && !schema.$ref) {
      const example = exampleOf(schema);
      if (example !== undefined) schema.example = example;
    }
  };
  for (const schema of Object.values(schemas)) fill(schema);
  // Request and response bodies a route gave no example of: the example of their schema.
  for (const operation of Object.values(paths).flatMap((item) => Object.values(item))) {
    const bodies = [operation.requestBody, ...Object.values(operation.responses ?? {})].flatMap((r) =>
      Object.values(r?.content ?? {}),
    );
    for (const media of bodies) {
      if ('example' in media || 'examples' in media) continue;
      const example = exampleOf(media.schema);
      if (example !== undefined) media.example = example;
    }
  }
}
