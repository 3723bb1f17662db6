import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../errors.js';
import { CONTROL_CHARACTERS_MESSAGE, WITHOUT_CONTROL_CHARACTERS } from '../schemas/control-characters.js';
import type { AppEnv } from './app-env.js';

/** How deep a body may nest: the deepest admin body is three levels; this leaves room and bounds the walk. */
const MAX_BODY_DEPTH = 32;

/** A value still to look at, with the key or index that reached it and its parent (the path is built only when needed). */
interface Visit {
  value: unknown;
  key: string | undefined;
  parent: Visit | undefined;
  depth: number;
}

function pathOf(visit: Visit): string[] {
  const path: string[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) path.unshift(at.key);
  return path;
}

/**
 * What is wrong with `body`, if anything: the path of the first text (a key or a value) holding a control
 * character (`description`, `events.0`), or that it nests deeper than MAX_BODY_DEPTH. Walked with a stack of
 * its own, never by recursion: a body of 30,000 brackets fits in 64 KiB.
 */
function bodyProblem(body: unknown): { control: string[] } | { tooDeep: true } | undefined {
  const stack: Visit[] = [{ value: body, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value, depth } = visit;
    if (typeof value === 'string') {
      if (!WITHOUT_CONTROL_CHARACTERS.test(value)) return { control: pathOf(visit) };
    } else if (typeof value === 'object' && value !== null) {
      if (depth >= MAX_BODY_DEPTH) return { tooDeep: true };
      const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item] as const) : Object.entries(value);
      // Pushed last first, so the first field is looked at first (the message names the first one found).
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        const child: Visit = { value: item, key, parent: visit, depth: depth + 1 };
        stack.push(child);
        if (!Array.isArray(value) && !WITHOUT_CONTROL_CHARACTERS.test(key)) stack.push({ ...child, value: key });
      }
    }
  }
  return undefined;
}

/**
 * One rule for every text of every admin request body (DESIGN §23): a control character (NUL, which
 * PostgreSQL cannot store, the rest of C0, DEL, C1) anywhere is 400 `validation_failed` naming the field,
 * before the body's own schema runs; so is a body nested deeper than MAX_BODY_DEPTH. A body that is not JSON is
 * left to the schema's validation to refuse.
 */
export const refuseControlCharacters: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.header('content-type')?.toLowerCase().includes('json')) {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return next();
    }
    const problem = bodyProblem(body);
    if (problem && 'tooDeep' in problem)
      throw new ApiError(
        'validation_failed',
        `The request is not valid. body: nested deeper than ${MAX_BODY_DEPTH} levels.`,
      );
    if (problem) {
      const path = problem.control;
      throw new ApiError(
        'validation_failed',
        `The request is not valid. ${path.length ? path.join('.') : 'body'}: ${CONTROL_CHARACTERS_MESSAGE}.`,
      );
    }
  }
  return next();
};
