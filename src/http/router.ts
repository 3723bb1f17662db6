import { OpenAPIHono, type z } from '@hono/zod-openapi';
import { ApiError } from '../errors.js';
import type { AppEnv } from './app-env.js';

export type Router = OpenAPIHono<AppEnv>;

/** The longest message the envelope documents is 1,000 characters: the issues named stop well before it. */
const MAX_ISSUES_TEXT = 900;

/**
 * Names each failing field and why, never its value (it may be a code or a token): at most 10 issues, a path
 * cut at 80 characters (a key is the caller's text), and no more than fits the envelope's message.
 */
export function describeIssues(error: z.ZodError): string {
  const parts: string[] = [];
  let length = 0;
  for (const issue of error.issues.slice(0, 10)) {
    const path = issue.path.length ? issue.path.map(String).join('.') : 'body';
    const part = `${path.length > 80 ? `${path.slice(0, 79)}…` : path}: ${issue.message}`;
    if (length + part.length > MAX_ISSUES_TEXT) break;
    parts.push(part);
    length += part.length + 2;
  }
  const more = error.issues.length - parts.length;
  return `The request is not valid. ${parts.join('; ')}${more > 0 ? `${parts.length ? '; ' : ''}and ${more} more` : ''}.`;
}

/** The one validation hook: every validation failure has the same envelope. */
function refuseInvalid(result: { success: true } | { success: false; error: z.ZodError }): void {
  if (!result.success) throw new ApiError('validation_failed', describeIssues(result.error));
}

/** Every router shares one validation hook, so every validation failure has the same envelope. */
export function createRouter(): Router {
  return new OpenAPIHono<AppEnv>({ defaultHook: refuseInvalid });
}
