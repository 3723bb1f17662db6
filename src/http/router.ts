import { OpenAPIHono, type z } from '@hono/zod-openapi';
import { ApiError } from '../errors.js';
import type { RecordedEvents } from '../domain/events.js';
import type { ConsoleSession } from '../domain/operators/console-sessions.js';
import type { Metrics } from '../metrics/metrics.js';

export interface AppEnv {
  Variables: {
    requestId: string;
    clientAddress: string;
    /** What per-IP rate limits count this client under: its address, or its /64 for IPv6. */
    clientKey: string;
    /** The app's metrics, for handlers that count what they changed. */
    metrics: Metrics;
    /** The events the changes of this request wrote: counted as transitions once it has answered. */
    recordedEvents: RecordedEvents;
    /** On admin routes, who the operator token says is acting (`root` for ADMIN_TOKEN). */
    operator: string;
    /** On admin routes, what the operator token allows: `read`, `write`, or `root` (ADMIN_TOKEN). */
    operatorScope: 'read' | 'write' | 'root';
    /** On console routes, the live console session of the request, if any. */
    consoleSession?: ConsoleSession;
  };
}

export type Router = OpenAPIHono<AppEnv>;

/** Names each failing field and why, never its value (it may be a code or a token). */
export function describeIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 10).map((issue) => {
    const where = issue.path.length ? issue.path.join('.') : 'body';
    return `${where}: ${issue.message}`;
  });
  return `The request is not valid. ${parts.join('; ')}.`;
}

/** Every router shares one validation hook, so every validation failure has the same envelope. */
export function createRouter(): Router {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw new ApiError('validation_failed', describeIssues(result.error));
    },
  });
}
