import { z } from '@hono/zod-openapi';
import { errorCatalog, errorCodes, type ErrorCode } from '../errors.js';

export const ErrorCodeSchema = z.enum(errorCodes).openapi('ErrorCode', {
  description: 'Machine-readable error code. Each code always comes with the same HTTP status.',
});

export const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      code: ErrorCodeSchema,
      message: z.string().openapi({ description: 'Human-readable, safe to show to operators.' }),
    }),
  })
  .openapi('ErrorEnvelope');

export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;

export const MetaSchema = z.object({ message: z.string() }).openapi('Meta');

/** The v2 success envelope `{data, meta: {message}}` around a resource schema. */
export function successEnvelope<T extends z.ZodTypeAny>(data: T) {
  return z.object({ data, meta: MetaSchema });
}

export function envelopeOf(code: ErrorCode, message: string = errorCatalog[code].message): ErrorEnvelope {
  return { error: { code, message } };
}

/** What a 503 carries besides the envelope (src/http/error-handling.ts sets it). */
const unavailableHeaders = {
  'Retry-After': { description: 'Seconds to wait before trying again while the database is unreachable.', schema: { type: 'integer' as const }, example: 5 },
};

/**
 * The documented error responses of a route, grouped by status, each code with its example.
 * Every route lists the codes it can give plus the ones any route can give. A limited route documents
 * its 429 with `rateLimitedResponse`, which adds that route's `Retry-After` and `RateLimit` headers.
 */
export function errorResponses(...codes: ErrorCode[]) {
  const all: ErrorCode[] = [...new Set<ErrorCode>([...codes, 'internal_error', 'service_unavailable'])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) {
    const status = errorCatalog[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, { description: string; headers?: typeof unavailableHeaders; content: { 'application/json': { schema: typeof ErrorEnvelopeSchema; examples: Record<string, { value: ErrorEnvelope }> } } }> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = {
      description: statusCodes.map((c) => `\`${c}\`: ${errorCatalog[c].message}`).join(' '),
      ...(status === 503 ? { headers: unavailableHeaders } : {}),
      content: {
        'application/json': {
          schema: ErrorEnvelopeSchema,
          examples: Object.fromEntries(statusCodes.map((c) => [c, { value: envelopeOf(c) }])),
        },
      },
    };
  }
  return responses;
}
