import { errorCatalog, type ErrorCode } from './errors.js';
import { IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED } from './http/idempotency-key.js';
import type { Router } from './http/router.js';
import { type ErrorResponse, errorResponses } from './schemas/envelope.js';
import { headerRef } from './schemas/response-headers.js';

/** The admin API's operations that take an Idempotency-Key: all its POSTs (src/http/idempotency-key.ts). */
const ADMIN_PATH = /^\/api\/v2\/admin\//;
const PARAMETER = 'IdempotencyKey';
const KEY_CODES: ErrorCode[] = ['idempotency_key_in_flight', 'idempotency_key_mismatch'];

interface Operation {
  parameters?: unknown[];
  responses: Record<string, Partial<ErrorResponse> & { headers?: Record<string, unknown> }>;
}

/** The request header every admin POST takes, once, as `components.parameters.IdempotencyKey`. */
export function registerIdempotencyKeyParameter(app: Router): void {
  app.openAPIRegistry.registerComponent('parameters', PARAMETER, {
    name: IDEMPOTENCY_KEY,
    in: 'header',
    required: false,
    description:
      "Makes this request safe to repeat (DESIGN §27, draft-ietf-httpapi-idempotency-key-header): a value of your own, fresh for each new request (a UUID), sent again unchanged when you retry it. The change is made once; a repeat within the key's lifetime (an hour when the answer shows a secret, a day otherwise) answers the first answer again, the same secret included, with `Idempotent-Replayed: true`. Only a 2xx answer is kept: after a 4xx or 5xx the same key may be tried again. The key belongs to the operator token that sent it, this method and this path; the same key with another path, query or body is 422 `idempotency_key_mismatch`; while the first request with it is still being answered, 409 `idempotency_key_in_flight` with `Retry-After: 1`. 16 to 255 printable ASCII characters, otherwise 400 `validation_failed`.",
    schema: {
      type: 'string',
      minLength: 16,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e][\\x20-\\x7e]{14,253}[\\x21-\\x7e]$',
    },
    example: '4f1c2a9e-7b3d-4e8a-9c6f-1d2e3f4a5b6c',
  });
}

/** Adds one code's documented answer to an operation's answers of its status (a new status, or one more example). */
function addErrorCode(responses: Operation['responses'], code: ErrorCode): void {
  const status = errorCatalog[code].status;
  const documented = errorResponses(code)[status]!;
  const existing = responses[status];
  if (!existing?.content) {
    // As the document holds the other error answers: the envelope by reference, not as its zod schema.
    const { examples } = documented.content['application/json'];
    responses[status] = {
      ...documented,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } as never, examples } },
    };
    return;
  }
  existing.description = `${existing.description} ${documented.description}`;
  Object.assign(existing.content['application/json'].examples, documented.content['application/json'].examples);
}

/**
 * Every admin POST declares the Idempotency-Key it takes, the `Idempotent-Replayed` header of its 2xx
 * answers and the two refusals a key brings, here, so that no admin route (and no new one) can leave them out.
 */
export function documentIdempotencyKeys(paths: Record<string, Record<string, Operation>>): void {
  for (const [path, item] of Object.entries(paths)) {
    const operation = item.post;
    if (!ADMIN_PATH.test(path) || !operation) continue;
    operation.parameters = [...(operation.parameters ?? []), { $ref: `#/components/parameters/${PARAMETER}` }];
    for (const [status, response] of Object.entries(operation.responses)) {
      if (/^2/.test(status))
        response.headers = { ...response.headers, [IDEMPOTENT_REPLAYED]: headerRef(IDEMPOTENT_REPLAYED) };
    }
    for (const code of KEY_CODES) addErrorCode(operation.responses, code);
  }
}
