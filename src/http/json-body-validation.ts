import { type RouteConfig, z } from '@hono/zod-openapi';
import type { Context, Handler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from './app-env.js';

/*
 * zod-openapi checks a JSON body in two middlewares (its media type gate, then hono's JSON validator), and the
 * validator parses with zod's asynchronous parse, which never takes zod's compiled path for objects. Here the
 * same checks are made in one step before the handler, with the same patterns, the same errors in the same
 * order, and zod's synchronous parse (its compiled path; a schema that turns out asynchronous is parsed
 * asynchronously). Without a Content-Type the body is read straight from the request (the gate reached for the
 * web Request's stream, which turns @hono/node-server's light request into a full one).
 */

/** zod-openapi's gate: what `application/json` admits as a Content-Type (else 415). */
const admittedContentType = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;
/** zod-openapi's test of whether an optional body is JSON to validate (else the body is `{}`). */
const jsonContentType = /^application\/([a-z-.]+\+)?json/i;
/** hono's validator: the media type under which the body is parsed (else it is validated as `{}`). */
const jsonMediaType = /^application\/([\w.-]+\+)?json$/i;

type ZodSchema = z.ZodType;
type ValidationResult = { success: true; data: unknown } | { success: false; error: z.ZodError };

const unsupportedMediaType = () => new HTTPException(415, { message: 'Unsupported Media Type' });

/** Whether the request carries a body of at least one byte (read at once: a route that takes JSON reads it anyway). */
async function hasBody(c: Context<AppEnv>): Promise<boolean> {
  return (await c.req.arrayBuffer()).byteLength > 0;
}

async function parse(schema: ZodSchema, value: unknown): Promise<ValidationResult> {
  try {
    return schema.safeParse(value);
  } catch (error) {
    if (error instanceof z.core.$ZodAsyncError) return schema.safeParseAsync(value);
    throw error;
  }
}

/** The body a route's handler reads as `c.req.valid('json')`, or the error zod-openapi's two middlewares would raise. */
async function validJsonBody(
  c: Context<AppEnv>,
  schema: ZodSchema,
  required: boolean,
  refuse: (result: ValidationResult) => void,
): Promise<unknown> {
  const contentType = c.req.header('content-type');
  if (contentType) {
    if (!admittedContentType.test(contentType)) throw unsupportedMediaType();
  } else if (await hasBody(c)) throw unsupportedMediaType();
  if (!required && !(contentType && jsonContentType.test(contentType))) return {};
  let value: unknown = {};
  if (contentType && jsonMediaType.test(contentType.split(';')[0]!.trim().toLowerCase())) {
    try {
      value = await c.req.json();
    } catch {
      throw new HTTPException(400, { message: 'Malformed JSON in request body' });
    }
  }
  const result = await parse(schema, value);
  if (result.success) return result.data;
  refuse(result);
  throw new Error('the validation hook let an invalid body through');
}

/**
 * For a route whose only body is `application/json` with a zod schema: the route as zod-openapi should
 * register it (without the body, so it adds no checks of its own, and hidden from the document), what the
 * document should say of it (the route as written), and its handler behind the body's check. Any other
 * route: undefined (zod-openapi registers it as it is).
 */
export function jsonBodyOperation<R extends RouteConfig>(
  route: R,
  handler: unknown,
  refuse: (result: ValidationResult) => void,
): { route: R; documented: RouteConfig; handler: Handler<AppEnv> } | undefined {
  const body = route.request?.body;
  const content = body?.content;
  if (!content || Object.keys(content).length !== 1) return undefined;
  const schema = (content['application/json'] as { schema?: ZodSchema } | undefined)?.schema;
  if (typeof schema?.safeParse !== 'function') return undefined;
  const { middleware: _middleware, hide: _hide, ...documented } = route;
  const { body: _body, ...request } = route.request!;
  const required = body!.required === true;
  const inner = handler as Handler<AppEnv>;
  return {
    route: { ...route, hide: true, request },
    documented,
    handler: async (c, next) => {
      c.req.addValidatedData('json', (await validJsonBody(c, schema, required, refuse)) as object);
      return inner(c, next);
    },
  };
}
