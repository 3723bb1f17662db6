import { OpenAPIHono, type z } from '@hono/zod-openapi';
import { ApiError } from '../errors.js';
import type { AppEnv } from './app-env.js';

export type Router = OpenAPIHono<AppEnv>;

/** Names each failing field and why, never its value (it may be a code or a token). */
export function describeIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 10).map((issue) => {
    const where = issue.path.length ? issue.path.join('.') : 'body';
    return `${where}: ${issue.message}`;
  });
  return `The request is not valid. ${parts.join('; ')}.`;
}

/** The one validation hook: every validation failure has the same envelope. */
function refuseInvalid(result: { success: true } | { success: false; error: z.ZodError }): void {
  if (!result.success) throw new ApiError('validation_failed', describeIssues(result.error));
}

/** Every router shares one validation hook, so every validation failure has the same envelope. */
export function createRouter(): Router {
  return new OpenAPIHono<AppEnv>({ defaultHook: refuseInvalid });
}
