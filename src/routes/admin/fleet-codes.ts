import { answerShowsSecret } from '../../http/idempotency-key.js';
import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset } from '../../clock.js';
import type { AppDeps } from '../../deps.js';
import type { ApprovalDecision } from '../../domain/install-codes/approval.js';
import { decidePrecheck } from '../../domain/install-codes/decide-precheck.js';
import { pendingPrechecksOf } from '../../domain/install-codes/operator-prechecks.js';
import { ApiError } from '../../errors.js';
import { issueRequestedCode } from '../../http/issue-requested-code.js';
import { emptyJsonBodyAsObject } from '../../http/body-guards.js';
import { operatorChangeContext } from '../../http/change-context.js';
import { jsonBody } from '../../http/json-body.js';
import type { Router } from '../../http/router.js';
import { prose } from '../../openapi-prose.js';
import {
  CreatedInstallCodeSchema,
  CreateInstallCodeRequestSchema,
  PrecheckDecisionParamsSchema,
  PrecheckDecisionSchema,
} from '../../schemas/admin/fleet-codes.js';
import { OperatorActionRequestSchema } from '../../schemas/admin/operator-reason.js';
import {
  InstallCodeIdParamsSchema,
  PendingPrecheckPageSchema,
  PendingPrecheckQuerySchema,
} from '../../schemas/admin/install-codes.js';
import { toPrecheckRecord } from './install-codes.js';
import { successEnvelope } from '../../schemas/envelope.js';
import { ADMIN_AUTH_SENTENCE, adminErrorResponses, adminOperation } from './admin-route.js';
import { noStore, noStoreHeader } from '../../http/no-store.js';

const create = createRoute({
  method: 'post',
  path: '/api/v2/admin/install-codes',
  operationId: 'createInstallCode',
  ...adminOperation('write', answerShowsSecret, noStore),
  summary: 'Issue an install code for a fleet',
  description: prose`Issues a code for automation (DESIGN §22: cloud-init, Ansible, a golden image), which enrolls up to
    \`uses\` machines, each one activation with its own single-use install token. A use is held by an activation
    waiting for confirm whose install token has not expired or whose server is active (an abandoned install
    gives its use back when its token expires, unless its agent lives on), given back by release, spent at confirm. While no use is free the code is \`exhausted\`, and
    precheck and activate answer 409 \`install_code_exhausted\`. A \`uses: 1\` code follows the page code's states
    and answers exactly. The answer holds the code, this once: the service keeps only its hash. \`tags\` are
    copied onto each activation and server, their webhook events (\`data.tags\`) and receipts. \`allowed_cidrs\`
    binds the code to networks (403 \`install_code_address_not_allowed\` elsewhere; inside them a code with
    \`uses\` > 1 counts in its own limits, 600 prechecks and 60 activations a minute, instead of the per-address
    ones), \`hostname_pattern\` to host names (403 \`install_code_hostname_not_allowed\`: the installer supplies the
    name, so this stops mistakes, not attackers), \`require_approval\` makes each machine wait for an operator
    (\`approveFleetPrecheck\`). \`warnings\` says what to know before handing the code out. Recorded as
    \`install_code.issued\` with \`uses\`, \`tags\`, the operator and the optional \`reason\`. Every bad field is 400
    \`validation_failed\` naming it, nothing stored. ${ADMIN_AUTH_SENTENCE}`,
  request: jsonBody(CreateInstallCodeRequestSchema),
  responses: {
    201: {
      description: 'The code, shown once.',
      headers: noStoreHeader('the code'),
      content: { 'application/json': { schema: successEnvelope(CreatedInstallCodeSchema) } },
    },
    ...adminErrorResponses('unsupported_media_type', 'payload_too_large'),
  },
});

const verbs = {
  approve: {
    operationId: 'approveFleetPrecheck',
    summary: "Approve a machine's precheck of a code",
    effect: prose`For a code with \`uses\` > 1 that precheck's token may take one use (its installer waiting on 409
      \`approval_pending\` gets 200 at its next try). For \`uses: 1\` it binds the code to that precheck as the
      person's approval does (DESIGN §14): a token of another precheck is 403 \`machine_mismatch\`. Recorded as
      \`install_code.approved\`.`,
  },
  deny: {
    operationId: 'denyFleetPrecheck',
    summary: "Deny a machine's precheck of a code",
    effect: prose`For a code with \`uses\` > 1 that precheck's token is refused (403 \`approval_denied\`) and the code stays
      usable for other machines. For \`uses: 1\` the code is revoked, as the person's deny does (DESIGN §14).
      Recorded as \`install_code.denied\`.`,
  },
} as const satisfies Record<ApprovalDecision, { operationId: string; summary: string; effect: string }>;

const pending = createRoute({
  method: 'get',
  path: '/api/v2/admin/install-codes/{install_code_id}/pending-prechecks',
  operationId: 'listPendingPrechecks',
  ...adminOperation('read'),
  summary: 'List the machines waiting on a decision',
  description: prose`Every precheck of a code issued with \`require_approval\` that waits on a decision, newest first, one page
    at a time (\`limit\`, \`cursor\`): each is decided with \`approveFleetPrecheck\` or \`denyFleetPrecheck\`. The code's
    show counts them in \`pending_prechecks\`; its \`prechecks\` shows only the newest, decided or not. Empty for a code
    issued without approval and for a \`uses: 1\` code once decided. An unknown id is 404 \`install_code_not_found\`.
    ${ADMIN_AUTH_SENTENCE}`,
  request: { params: InstallCodeIdParamsSchema, query: PendingPrecheckQuerySchema },
  responses: {
    200: {
      description: 'One page of the machines waiting.',
      content: { 'application/json': { schema: successEnvelope(PendingPrecheckPageSchema) } },
    },
    ...adminErrorResponses('install_code_not_found'),
  },
});

function decisionRoute(decision: ApprovalDecision) {
  const verb = verbs[decision];
  return createRoute({
    method: 'post',
    path: `/api/v2/admin/install-codes/{install_code_id}/prechecks/{precheck_id}/${decision}`,
    operationId: verb.operationId,
    ...adminOperation('write', emptyJsonBodyAsObject),
    summary: verb.summary,
    description: prose`An operator decides on a machine waiting to use a code issued with \`require_approval\` (the code's
      show lists them in \`prechecks\`, each \`pending\` until decided). ${verb.effect} Repeating the same decision answers 200 and
      changes nothing; the other decision afterwards is 409 \`approval_decided\`. A page code's machine is its person's to
      approve: an operator's approve of it is 403 \`approval_not_operators\` (a deny, which revokes it, is taken). A code that can no longer be
      used answers its own error. The body is optional: \`{"reason": "…"}\` is kept in the event with the
      operator's name. ${ADMIN_AUTH_SENTENCE}`,
    request: {
      params: PrecheckDecisionParamsSchema,
      body: { required: false, content: { 'application/json': { schema: OperatorActionRequestSchema } } },
    },
    responses: {
      200: {
        description: 'The decision.',
        content: { 'application/json': { schema: successEnvelope(PrecheckDecisionSchema) } },
      },
      ...adminErrorResponses(
        'install_code_not_found',
        'precheck_not_found',
        'approval_not_operators',
        'approval_decided',
        'install_code_expired',
        'install_code_revoked',
        'install_code_unavailable',
        'unsupported_media_type',
        'payload_too_large',
      ),
    },
  });
}

export function registerAdminFleetCodes(app: Router, deps: AppDeps): void {
  app.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const issued = await issueRequestedCode(c, { ...deps, db: c.get('db') }, body);
    return c.json(
      {
        data: {
          install_code: issued.code,
          install_code_id: issued.id,
          install_code_hint: issued.hint,
          uses: body.uses,
          expires_at: toIsoOffset(issued.expiresAt),
          ttl_seconds: issued.ttlSeconds,
          tags: issued.tags,
          require_approval: body.require_approval,
          ...(issued.trust ? { trust: issued.trust } : {}),
          warnings: issued.warnings,
        },
        meta: { message: 'Install code issued: it is shown this once.' },
      },
      201,
    );
  });

  app.openapi(pending, async (c) => {
    const { install_code_id: id } = c.req.valid('param');
    const { limit, cursor } = c.req.valid('query');
    const page = await c.get('read')((reader) => pendingPrechecksOf(reader, id, { limit, cursor }));
    if (!page) throw new ApiError('install_code_not_found');
    return c.json(
      {
        data: { items: page.items.map(toPrecheckRecord), next_cursor: page.nextCursor },
        meta: { message: `${page.items.length} machines waiting on a decision${page.nextCursor ? ', and more' : ''}.` },
      },
      200,
    );
  });

  for (const decision of ['approve', 'deny'] as const) {
    app.openapi(decisionRoute(decision), async (c) => {
      const { install_code_id: installCodeId, precheck_id: precheckId } = c.req.valid('param');
      const context = operatorChangeContext(c, c.req.valid('json')?.reason ?? null);
      const { changed, decidedAt } = await decidePrecheck(c.get('db'), {
        input: { decider: 'operator', installCodeId, precheckId, decision },
        now: deps.clock.now(),
        context,
      });
      return c.json(
        {
          data: {
            install_code_id: installCodeId,
            precheck_id: precheckId,
            decision: decision === 'approve' ? ('approved' as const) : ('denied' as const),
            decided_at: toIsoOffset(decidedAt),
          },
          meta: { message: changed ? `Precheck ${precheckId} decided.` : 'Already decided so: nothing changed.' },
        },
        200,
      );
    });
  }
}
