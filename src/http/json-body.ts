import type { z } from '@hono/zod-openapi';

/** A required JSON request body: validated by the shared hook, 400 `validation_failed` when it is not right. */
export function jsonBody<T extends z.ZodTypeAny>(schema: T) {
  return { body: { required: true, content: { 'application/json': { schema } } } } as const;
}
