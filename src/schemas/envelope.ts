import { z } from '@hono/zod-openapi';
import { errorCatalog, errorCodes, type ErrorCode } from '../errors.js';
import { headerRefs, type HeaderRef, type ResponseHeaderName } from './response-headers.js';

export const ErrorCodeSchema = z.enum(errorCodes).openapi('ErrorCode', {
  description: 'Machine-readable error code. Each code always comes with the same HTTP status.',
});

export const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      code: ErrorCodeSchema,
      message: z.string().max(1000).openapi({
        description: 'Human-readable, safe to show to operators.',
        example: 'No install code matches what was entered.',
      }),
    }),
  })
  .openapi('ErrorEnvelope', {
    example: { error: { code: 'install_code_not_found', message: 'No install code matches what was entered.' } },
  });

export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;

export const MetaSchema = z
  .object({
    message: z
      .string()
      .max(1000)
      .openapi({ description: 'Human-readable, safe to show.', example: 'Install code is valid for this machine.' }),
  })
  .openapi('Meta', { example: { message: 'Install code is valid for this machine.' } });

/** The v2 success envelope `{data, meta: {message}}` around a resource schema. */
export function successEnvelope<T extends z.ZodTypeAny>(data: T) {
  return z.object({ data, meta: MetaSchema });
}

export function envelopeOf(code: ErrorCode, message: string = errorCatalog[code].message): ErrorEnvelope {
  return { error: { code, message } };
}

/** The headers an error code brings with it, wherever it is answered (set where the error is thrown). */
const headersOfCode: Partial<Record<ErrorCode, ResponseHeaderName[]>> = {
  agent_token_invalid: ['WWW-Authenticate'],
  admin_token_invalid: ['WWW-Authenticate'],
  method_not_allowed: ['Allow'],
  rate_limit_exceeded: ['Retry-After'],
  service_unavailable: ['Retry-After'],
};

/** The headers documented on an error status: those its codes bring (every code of a status must bring them). */
function headersOf(codes: ErrorCode[]): Record<string, HeaderRef> | undefined {
  const names = [...new Set(codes.flatMap((c) => headersOfCode[c] ?? []))];
  return names.length ? headerRefs(...names) : undefined;
}

/**
 * What any request can be answered: a request cut by the server (not well-formed, too slow to arrive,
 * headers too large: answered before routing, src/http/client-error-answer.ts), a body over the limit
 * (a GET declaring one too: src/http/body-guards.ts), a failure of ours, the database out of reach.
 */
const answeredOnEveryRoute: ErrorCode[] = [
  'malformed_request',
  'request_timeout',
  'request_headers_too_large',
  'payload_too_large',
  'internal_error',
  'service_unavailable',
];

export interface ErrorResponse {
  description: string;
  headers?: Record<string, HeaderRef>;
  content: {
    'application/json': { schema: typeof ErrorEnvelopeSchema; examples: Record<string, { value: ErrorEnvelope }> };
  };
}

/**
 * The documented error responses of a route, grouped by status, each code with its example and the
 * headers its codes bring (`Retry-After`, `WWW-Authenticate`, `Allow`). Every route lists the codes it
 * can give plus the ones any route can give. A rate-limited route documents its 429 with
 * `rateLimitedResponse`; the document builder adds `X-Request-Id` to every response and the
 * `RateLimit` headers to every 2xx and 4xx answer of a limited route.
 */
export function errorResponses(...codes: ErrorCode[]): Record<number, ErrorResponse> {
  const all: ErrorCode[] = [...new Set<ErrorCode>([...codes, ...answeredOnEveryRoute])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) {
    const status = errorCatalog[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, ErrorResponse> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers = headersOf(statusCodes);
    responses[status] = {
      description: statusCodes.map((c) => `\`${c}\`: ${errorCatalog[c].message}`).join(' '),
      ...(headers ? { headers } : {}),
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
