import type { Context } from 'hono';

/**
 * The JSON body as the client sent it, before the route's schema trimmed or normalised any field: what a
 * signature over the sent values (activate's machine proof) is checked against. Hono keeps the parsed body
 * from the validation, so this parses nothing again; call it only after the body was validated.
 */
export async function sentJsonBody(c: Context): Promise<Record<string, unknown>> {
  return (await c.req.json()) as Record<string, unknown>;
}
