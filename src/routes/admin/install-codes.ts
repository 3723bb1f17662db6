import { showInstallCode } from '../../domain/admin-lists/object-shows.js';
import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset } from '../../clock.js';
import type { AppDeps } from '../../deps.js';
import { listInstallCodes, type InstallCodeListItem } from '../../domain/admin-lists/install-code-list.js';
import type { OperatorPrecheck } from '../../domain/install-codes/operator-prechecks.js';
import type { ActivationRow } from '../../domain/activations/activation-rows.js';
import { ApiError } from '../../errors.js';
import { emptyJsonBodyAsObject } from '../../http/body-guards.js';
import { operatorChangeContext } from '../../http/change-context.js';
import { revokeInstallCodeAsOperator } from '../../domain/install-codes/revoke-as-operator.js';
import { OperatorActionRequestSchema } from '../../schemas/admin/operator-reason.js';
import type { Router } from '../../http/router.js';
import {
  InstallCodeIdParamsSchema,
  InstallCodeListQuerySchema,
  InstallCodePageSchema,
  InstallCodeRecordSchema,
  InstallCodeWithEventsSchema,
} from '../../schemas/admin/install-codes.js';
import { search, timeRange } from '../../schemas/admin/list.js';
import { successEnvelope } from '../../schemas/envelope.js';
import { toEventRecord } from './event-record.js';
import {
  ADMIN_AUTH_SENTENCE,
  adminErrorResponses,
  adminOperation,
  EXPORT_SENTENCE,
  listAnswer,
  listResponse,
} from './admin-route.js';
import { prose } from '../../openapi-prose.js';

const list = createRoute({
  method: 'get',
  path: '/api/v2/admin/install-codes',
  operationId: 'listInstallCodes',
  ...adminOperation('read'),
  summary: 'List install codes',
  description: prose`Install codes, newest issued first, with their hint, status, times and the latest activation that used
    them; never the code itself (the service keeps only its hash). Search: \`q\` (part of the hint, or the start of the id), and
    the machine of an activation that used the code: \`ip\` (an address or a CIDR network), \`machine_id\`,
    \`ssh_fingerprint\`. Filters: \`status\` (\`expired\` is an \`issued\` code past its expiry), \`hint\`
    (part of the hint, e.g. the last group), \`since\`/\`until\` on the issue time. ${EXPORT_SENTENCE} ${ADMIN_AUTH_SENTENCE}`,
  request: { query: InstallCodeListQuerySchema },
  responses: {
    ...listResponse(
      'One page of install codes, or every matching one as NDJSON.',
      InstallCodePageSchema,
      InstallCodeRecordSchema,
    ),
    ...adminErrorResponses(),
  },
});

const show = createRoute({
  method: 'get',
  path: '/api/v2/admin/install-codes/{install_code_id}',
  operationId: 'getInstallCode',
  ...adminOperation('read'),
  summary: 'One install code with its events',
  description: prose`The code as \`listInstallCodes\` shows it, with \`prechecks\` (of a code issued with approval: each
    machine that prechecked it, from which address, when, and the person's decision on it) and \`events\`: every event about it, oldest first (issued,
    activated, restored, revoked, …, each with its actor, and an operator's name and reason). An unknown id is
    404 \`install_code_not_found\`. ${ADMIN_AUTH_SENTENCE}`,
  request: { params: InstallCodeIdParamsSchema },
  responses: {
    200: {
      description: 'The code and its events.',
      content: { 'application/json': { schema: successEnvelope(InstallCodeWithEventsSchema) } },
    },
    ...adminErrorResponses('install_code_not_found'),
  },
});

const revoke = createRoute({
  method: 'post',
  path: '/api/v2/admin/install-codes/{install_code_id}/revoke',
  operationId: 'revokeInstallCode',
  ...adminOperation('write', emptyJsonBodyAsObject),
  summary: 'Revoke an install code',
  description: prose`Revokes an \`issued\` code (expired or not): a precheck or activate of it is then 410
    \`install_code_revoked\`, even with a precheck token made before. Recorded as the event
    \`install_code.revoked\` with the operator as actor. Idempotent: revoking a revoked code answers 200 with
    it as it is (and records nothing more). A code an activation holds (\`activated\`, \`consumed\`) is 409
    \`install_code_unavailable\`: release the activation instead (\`releaseActivation\` with
    \`restore_install_code: false\`). The body is optional: \`{"reason": "…"}\` says why, kept in the event
    with the operator's name. ${ADMIN_AUTH_SENTENCE}`,
  request: {
    params: InstallCodeIdParamsSchema,
    body: { required: false, content: { 'application/json': { schema: OperatorActionRequestSchema } } },
  },
  responses: {
    200: {
      description: 'The revoked code.',
      content: { 'application/json': { schema: successEnvelope(InstallCodeRecordSchema) } },
    },
    ...adminErrorResponses(
      'install_code_not_found',
      'install_code_unavailable',
      'unsupported_media_type',
      'payload_too_large',
    ),
  },
});

function toCodeActivation(activation: ActivationRow) {
  return {
    activation_id: activation.id,
    status: activation.status,
    hostname: activation.hostname,
    public_ip: activation.publicIp,
    created_at: toIsoOffset(activation.createdAt),
  };
}

function toRecord({ code, status, approval, activation, usesHeld }: InstallCodeListItem) {
  return {
    install_code_id: code.id,
    install_code_hint: code.hint,
    status,
    issued_at: toIsoOffset(code.issuedAt),
    expires_at: toIsoOffset(code.expiresAt),
    revoked_at: code.revokedAt ? toIsoOffset(code.revokedAt) : null,
    approval,
    activation: activation ? toCodeActivation(activation) : null,
    uses: code.uses,
    uses_spent: code.usesSpent,
    uses_held: code.uses > 1 ? usesHeld : code.status === 'activated' ? 1 : 0,
    last_used_at: code.lastUsedAt ? toIsoOffset(code.lastUsedAt) : null,
    tags: code.tags,
    description: code.description,
    issued_by: code.browserSessionHash === null ? ('operator' as const) : ('page' as const),
    allowed_cidrs: code.allowedCidrs,
    hostname_pattern: code.hostnamePattern,
    require_machine_proof: code.requireMachineProof,
    trust: code.trust,
  };
}

export function toPrecheckRecord(p: OperatorPrecheck) {
  return {
    precheck_id: p.id,
    machine_id: p.machineId,
    ssh_fingerprint: p.sshFingerprint,
    ip: p.ip,
    installer_version: p.installerVersion,
    prechecked_at: toIsoOffset(p.precheckedAt),
    approval: p.approval,
  };
}

export function registerAdminInstallCodes(app: Router, deps: AppDeps): void {
  app.openapi(list, async (c) => {
    const query = c.req.valid('query');
    const filter = { ...query, ...search(query), ...timeRange(query) };
    const now = deps.clock.now();
    return listAnswer(
      c,
      query,
      (reader, cursor, limit) => listInstallCodes(reader, { ...filter, cursor, limit }, now),
      toRecord,
      'install codes',
    );
  });

  app.openapi(show, async (c) => {
    const { install_code_id: id } = c.req.valid('param');
    const shown = await c.get('read')((reader) => showInstallCode(reader, id, deps.clock.now()));
    if (!shown) throw new ApiError('install_code_not_found');
    const { item, history, prechecks, pendingPrechecks, activations } = shown;
    return c.json(
      {
        data: {
          ...toRecord(item),
          activations: activations.map(toCodeActivation),
          prechecks: prechecks.map(toPrecheckRecord),
          pending_prechecks: pendingPrechecks,
          events: history.map(toEventRecord),
        },
        meta: { message: `${item.code.id} and ${history.length} events.` },
      },
      200,
    );
  });

  app.openapi(revoke, async (c) => {
    const { install_code_id: id } = c.req.valid('param');
    // Without a body (no Content-Type) the validator does not run.
    const context = operatorChangeContext(c, c.req.valid('json')?.reason ?? null);
    await revokeInstallCodeAsOperator(c.get('db'), id, deps.clock.now(), context);
    const [item] = (await listInstallCodes(c.get('db'), { id, limit: 1 }, deps.clock.now())).items;
    return c.json({ data: toRecord(item!), meta: { message: 'Install code revoked.' } }, 200);
  });
}
