/**
 * Gives a named schema that is a union of objects (zod's `z.union` of object schemas: an `anyOf` or
 * `oneOf` of references, with no `type`) the `type: object` its members all share. Valid either way in
 * JSON Schema, but Scalar's document check refuses a schema with neither `type` nor `$ref` ("Expected
 * union value" for `Status`), and saying it outright tells every reader what the answer is.
 */
type Schema = { type?: unknown; $ref?: string; anyOf?: Schema[]; oneOf?: Schema[] };

export function typeObjectUnions(schemas: Record<string, Schema>): void {
  const typeOf = (schema: Schema) => (schema.$ref ? schemas[schema.$ref.split('/').pop()!]?.type : schema.type);
  for (const schema of Object.values(schemas)) {
    const members = schema.anyOf ?? schema.oneOf;
    if (schema.type === undefined && members?.length && members.every((member) => typeOf(member) === 'object'))
      schema.type = 'object';
  }
}
