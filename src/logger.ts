import type { LogLevel } from './config.js';

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** Whether a line at `at` is written: a caller whose fields cost something to gather asks first. */
  writes(at: Exclude<LogLevel, 'silent'>): boolean;
}

/**
 * JSON lines on stdout (or `write`, which tests use to read every line).
 * Callers pass only fields that are safe to log: never a cookie, code or token.
 * `context` adds fields of the moment to each line: while tracing is on, the active span's `trace_id`
 * and `span_id` (Tracing.logFields).
 */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  context?: () => LogFields | undefined,
): Logger {
  const emit =
    (at: Exclude<LogLevel, 'silent'>) =>
    (msg: string, fields: LogFields = {}) => {
      if (rank[at] < rank[level]) return;
      // Wall time, not the injected clock: a log line is read next to other systems' logs, so it must say
      // when it was really written, even when a test (or a clock-shifted app) runs on a fixed clock.
      write(JSON.stringify({ time: new Date().toISOString(), level: at, msg, ...context?.(), ...fields }));
    };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    writes: (at) => rank[at] >= rank[level],
  };
}

export interface ErrorFields {
  error: string;
  code?: string;
  stack?: string;
}

type ErrorLike = { message?: unknown; code?: unknown; cause?: unknown };

/**
 * An error as log fields, without the values of a failed query. Drizzle's DrizzleQueryError says
 * `Failed query: <sql>\nparams: <values>` in its message and so at the head of its stack, and those
 * values can be a token id, a hash or a private key; only the SQL is kept. The causes' messages and
 * the first error code (a PostgreSQL SQLSTATE such as `42P01`) are kept: they say what went wrong.
 */
export function errorFields(err: unknown): ErrorFields {
  if (!(err instanceof Error)) return { error: withoutParams(describeNonError(err)) };
  const messages = [withoutParams(err.message)];
  let code = codeOf(err);
  for (
    let e = err.cause, depth = 0;
    typeof e === 'object' && e !== null && depth < 5;
    e = (e as ErrorLike).cause, depth++
  ) {
    const { message } = e as ErrorLike;
    const causeCode = codeOf(e);
    code ??= causeCode;
    // Data exceptions (SQLSTATE class 22) quote the offending value, e.g. `invalid input syntax for type uuid: "…"`.
    if (typeof message === 'string' && !causeCode?.startsWith('22')) messages.push(withoutParams(message));
  }
  const fields: ErrorFields = { error: messages.filter(Boolean).join(': ') };
  if (code !== undefined) fields.code = code;
  if (err.stack) fields.stack = withoutParamsInStack(err, err.stack);
  return fields;
}

/** Something thrown that is not an Error (some libraries throw plain objects): never `[object Object]`. */
function describeNonError(thrown: unknown): string {
  if (typeof thrown !== 'object' || thrown === null) return String(thrown);
  const { message, code } = thrown as ErrorLike;
  if (typeof message === 'string') return message;
  if (typeof code === 'string' || typeof code === 'number') return `error ${code}`;
  try {
    return JSON.stringify(thrown).slice(0, 200);
  } catch {
    return 'an unknown error';
  }
}

function codeOf(e: object): string | undefined {
  const { code } = e as ErrorLike;
  return typeof code === 'string' ? code : undefined;
}

function withoutParams(message: string): string {
  const at = message.indexOf('\nparams:');
  return at === -1 ? message : message.slice(0, at);
}

/** The stack's head (`Name: message`) holds the parameters too: rebuild it from the safe message, keep the frames. */
function withoutParamsInStack(err: Error, stack: string): string {
  const messageAt = err.message ? stack.indexOf(err.message) : -1;
  const firstFrame = stack.indexOf('\n    at ');
  const frames =
    messageAt !== -1 ? stack.slice(messageAt + err.message.length) : firstFrame !== -1 ? stack.slice(firstFrame) : '';
  return `${err.name}: ${withoutParams(err.message)}${frames}`;
}
