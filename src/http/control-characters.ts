import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import { CONTROL_CHARACTERS_MESSAGE, WITHOUT_CONTROL_CHARACTERS } from '../schemas/control-characters.js';
import type { AppEnv } from './app-env.js';

/** The path of the first text in `value` holding a control character (`description`, `events.0`), or undefined. */
function textWithControl(value: unknown, path: string[]): string[] | undefined {
  if (typeof value === 'string') return WITHOUT_CONTROL_CHARACTERS.test(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = textWithControl(item, [...path, String(i)]);
      if (found) return found;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const found = textWithControl(key, [...path, key]) ?? textWithControl(item, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * One rule for every text of every admin request body (DESIGN §23): a control character (NUL, which
 * PostgreSQL cannot store, the rest of C0, DEL, C1) anywhere is 400 `validation_failed` naming the field,
 * before the body's own schema runs. A body that is not JSON is left to the schema's validation to refuse.
 */
export const refuseControlCharacters: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.header('content-type')?.toLowerCase().includes('json')) {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return next();
    }
    const path = textWithControl(body, []);
    if (path)
      throw new ApiError(
        'validation_failed',
        `The request is not valid. ${path.length ? path.join('.') : 'body'}: ${CONTROL_CHARACTERS_MESSAGE}.`,
      );
  }
  return next();
};
