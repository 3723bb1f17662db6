import { answerShowsSecret } from '../../http/idempotency-key.js';
import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset, wholeSecond } from '../../clock.js';
import type { RouteDeps } from '../../deps.js';
import {
  createOperatorToken,
  listOperatorTokens,
  operatorTokenStatus,
  revokeOperatorToken,
  type OperatorTokenRow,
} from '../../domain/operators/operator-tokens.js';
import { operatorChangeContext } from '../../http/change-context.js';
import { jsonBody } from '../../http/json-body.js';
import type { Router } from '../../http/router.js';
import { OperatorActionRequestSchema } from '../../schemas/admin/operator-reason.js';
import {
  CreatedOperatorTokenSchema,
  OperatorTokenIdParamsSchema,
  OperatorTokenListSchema,
  OperatorTokenRecordSchema,
  OperatorTokenRequestSchema,
} from '../../schemas/admin/operator-tokens.js';
import { successEnvelope } from '../../schemas/envelope.js';
import { ADMIN_AUTH_SENTENCE, adminErrorResponses, adminOperation } from './admin-route.js';
import { prose } from '../../openapi-prose.js';
import { noStore, noStoreHeader } from '../../http/no-store.js';

const PATH = '/api/v2/admin/tokens';

const create = createRoute({
  method: 'post',
  path: PATH,
  operationId: 'createOperatorToken',
  ...adminOperation('root', answerShowsSecret, noStore),
  summary: 'Make a named operator token',
  description: prose`Makes a token that acts on the admin API as \`name\` with \`scope\` (\`read\`: lists and objects;
    \`write\`: those and the operator actions), until \`expires_at\` if given and until revoked. The answer
    holds the token, this once: the service keeps only its hash. Events of what it does name it
    (\`operator\`). Recorded as \`operator_token.created\` (its id, name, scope and expiry, never the token)
    with the operator and the optional \`reason\`. Refused with 400 \`validation_failed\`, nothing stored: a
    name empty, longer than 64 characters, with control characters or \`root\`; a scope other than \`read\` or
    \`write\`; an \`expires_at\` not in the future. Only \`ADMIN_TOKEN\` manages tokens: a named token is 403
    \`admin_scope_insufficient\`. ${ADMIN_AUTH_SENTENCE}`,
  request: jsonBody(OperatorTokenRequestSchema),
  responses: {
    201: {
      description: 'The token, shown once.',
      headers: noStoreHeader('the token'),
      content: { 'application/json': { schema: successEnvelope(CreatedOperatorTokenSchema) } },
    },
    ...adminErrorResponses('unsupported_media_type', 'payload_too_large'),
  },
});

const list = createRoute({
  method: 'get',
  path: PATH,
  operationId: 'listOperatorTokens',
  ...adminOperation('root'),
  summary: 'List named operator tokens',
  description: `Every named operator token, newest first, with its scope, status and last use; never the token. ${ADMIN_AUTH_SENTENCE}`,
  responses: {
    200: {
      description: 'The tokens.',
      content: { 'application/json': { schema: successEnvelope(OperatorTokenListSchema) } },
    },
    ...adminErrorResponses(),
  },
});

const revoke = createRoute({
  method: 'delete',
  path: `${PATH}/{id}`,
  operationId: 'revokeOperatorToken',
  ...adminOperation('root'),
  summary: 'Revoke a named operator token',
  description: prose`The token is refused (401 \`admin_token_invalid\`) from the next request on, and stays listed as
    \`revoked\`; a console session it signed in ends. The body is optional: \`{"reason": "…"}\` says why.
    Recorded as \`operator_token.revoked\` with the operator and the reason. Idempotent: revoking a revoked
    token answers 200 with it as it is, recording nothing more. ${ADMIN_AUTH_SENTENCE}`,
  request: {
    params: OperatorTokenIdParamsSchema,
    body: { required: false, content: { 'application/json': { schema: OperatorActionRequestSchema } } },
  },
  responses: {
    200: {
      description: 'The token, revoked.',
      content: { 'application/json': { schema: successEnvelope(OperatorTokenRecordSchema) } },
    },
    ...adminErrorResponses('operator_token_not_found', 'unsupported_media_type', 'payload_too_large'),
  },
});

function toRecord(row: OperatorTokenRow, now: Date) {
  return {
    operator_token_id: row.id,
    name: row.name,
    scope: row.scope,
    status: operatorTokenStatus(row, now),
    created_at: toIsoOffset(row.createdAt),
    expires_at: row.expiresAt ? toIsoOffset(row.expiresAt) : null,
    last_used_at: row.lastUsedAt ? toIsoOffset(row.lastUsedAt) : null,
    revoked_at: row.revokedAt ? toIsoOffset(row.revokedAt) : null,
    created_by: row.createdBy,
  };
}

export function registerAdminOperatorTokens(app: Router, deps: RouteDeps): void {
  app.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const now = deps.clock.now();
    const context = operatorChangeContext(c, body.reason ?? null);
    const { row, token } = await createOperatorToken(
      c.get('db'),
      {
        name: body.name,
        scope: body.scope,
        expiresAt: body.expires_at ? wholeSecond(new Date(body.expires_at)) : null,
      },
      now,
      context,
    );
    return c.json(
      {
        data: { ...toRecord(row, now), token },
        meta: { message: 'Operator token made: keep it now, it is not shown again.' },
      },
      201,
    );
  });

  app.openapi(list, async (c) => {
    const now = deps.clock.now();
    const rows = await listOperatorTokens(deps.db);
    return c.json(
      { data: { items: rows.map((row) => toRecord(row, now)) }, meta: { message: `${rows.length} operator tokens.` } },
      200,
    );
  });

  app.openapi(revoke, async (c) => {
    const { id } = c.req.valid('param');
    const now = deps.clock.now();
    // Without a body (no Content-Type) the validator does not run.
    const context = operatorChangeContext(c, c.req.valid('json')?.reason ?? null);
    const { row, revoked } = await revokeOperatorToken(deps.db, id, now, context);
    return c.json(
      {
        data: toRecord(row, now),
        meta: { message: revoked ? 'Operator token revoked.' : 'Operator token was already revoked.' },
      },
      200,
    );
  });
}
