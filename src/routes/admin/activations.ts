import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset } from '../../clock.js';
import type { AppDeps } from '../../deps.js';
import { listActivations, type ActivationListItem } from '../../domain/admin/activation-list.js';
import { serverHealth } from '../../domain/admin/server-list.js';
import { releaseActivation } from '../../domain/activations.js';
import { emptyJsonBodyAsObject } from '../../http/body-guards.js';
import { changeContext } from '../../http/change-context.js';
import type { Router } from '../../http/router.js';
import { ReleaseResultSchema } from '../../schemas/activation.js';
import { ActivationIdParamsSchema, ActivationListQuerySchema, ActivationPageSchema, OperatorReleaseRequestSchema } from '../../schemas/admin/activations.js';
import { timeRange } from '../../schemas/admin/list.js';
import { successEnvelope } from '../../schemas/envelope.js';
import { ADMIN_AUTH_SENTENCE, adminErrorResponses, adminOperation } from './admin-route.js';

const list = createRoute({
  method: 'get',
  path: '/api/v2/admin/activations',
  operationId: 'listActivations',
  ...adminOperation,
  summary: 'List activations',
  description: `Activations, newest first, each with its machine binding, requested ref, installer version, times and the server registered for it; never the install token. Filters: \`status\`, \`machine_id\`, \`hostname\`, \`public_ip\` (exact), \`install_code_id\`, \`duplicate\` (flagged as a duplicate machine or not: \`duplicate_of\`), \`since\`/\`until\` on the creation time. ${ADMIN_AUTH_SENTENCE}`,
  request: { query: ActivationListQuerySchema },
  responses: {
    200: { description: 'One page of activations.', content: { 'application/json': { schema: successEnvelope(ActivationPageSchema) } } },
    ...adminErrorResponses(),
  },
});

const release = createRoute({
  method: 'post',
  path: '/api/v2/admin/activations/{activation_id}/release',
  operationId: 'releaseActivation',
  ...adminOperation,
  summary: 'Force-release an activation',
  description: `Releases an unconfirmed activation as the installer's release does: a server registered for it is revoked in the same transaction, and the code is restored when its install token is unused and unexpired and the code unexpired. With \`{"restore_install_code": false}\` the code is revoked instead, so that it can never be used again. Recorded as \`activation.released\` (\`released_by: "operator"\`) with \`install_code.restored\` or \`install_code.revoked\` and \`server.revoked\` as they apply. The body is optional. Idempotent: releasing a released activation answers 200 with what its first release answered. A confirmed activation is 409 \`activation_confirmed\`: revoke its server instead. ${ADMIN_AUTH_SENTENCE}`,
  middleware: [emptyJsonBodyAsObject],
  request: { params: ActivationIdParamsSchema, body: { required: false, content: { 'application/json': { schema: OperatorReleaseRequestSchema } } } },
  responses: {
    200: { description: 'The activation is released.', content: { 'application/json': { schema: successEnvelope(ReleaseResultSchema) } } },
    ...adminErrorResponses('activation_not_found', 'activation_confirmed', 'unsupported_media_type', 'payload_too_large'),
  },
});

export function registerAdminActivations(app: Router, deps: AppDeps): void {
  const thresholds = { deadAfterSeconds: deps.config.serverDeadAfterSeconds };

  app.openapi(list, async (c) => {
    const query = c.req.valid('query');
    const now = deps.clock.now();
    const duplicate = query.duplicate === undefined ? undefined : query.duplicate === 'true';
    const page = await listActivations(deps.db, { ...query, duplicate, machineId: query.machine_id, publicIp: query.public_ip, installCodeId: query.install_code_id, ...timeRange(query) });
    const toRecord = ({ activation: a, server }: ActivationListItem) => ({
      activation_id: a.id,
      install_code_id: a.installCodeId,
      status: a.status,
      machine_binding: { hostname: a.hostname, public_ip: a.publicIp, machine_id: a.machineId, ssh_fingerprint: a.sshFingerprint },
      requested_ref: a.requestedRef,
      installer_version: a.installerVersion,
      created_at: toIsoOffset(a.createdAt),
      install_token_expires_at: toIsoOffset(a.installTokenExpiresAt),
      confirmed_at: a.confirmedAt ? toIsoOffset(a.confirmedAt) : null,
      released_at: a.releasedAt ? toIsoOffset(a.releasedAt) : null,
      install_code_restored: a.status === 'released' ? (a.codeRestored ?? false) : null,
      duplicate_of: a.duplicateOf,
      server: server
        ? { server_id: server.id, status: server.status, health: serverHealth(server, now, thresholds), last_seen_at: server.lastSeenAt ? toIsoOffset(server.lastSeenAt) : null }
        : null,
    });
    return c.json({ data: { items: page.items.map(toRecord), next_cursor: page.nextCursor }, meta: { message: `${page.items.length} activations.` } }, 200);
  });

  app.openapi(release, async (c) => {
    const { activation_id } = c.req.valid('param');
    // Without a body (no Content-Type) the validator does not run, so its default does not apply either.
    const restore = c.req.valid('json').restore_install_code !== false;
    const context = changeContext(c, 'operator');
    const { activationId, codeRestored, released, serverRevoked } = await releaseActivation(deps.db, activation_id, deps.clock.now(), context, { code: restore ? 'restore' : 'revoke' });
    if (released) c.var.metrics.transition('activation.released', context.actor);
    if (released && codeRestored) c.var.metrics.transition('install_code.restored', context.actor);
    if (released && !restore) c.var.metrics.transition('install_code.revoked', context.actor);
    if (serverRevoked) c.var.metrics.transition('server.revoked', context.actor);
    return c.json({ data: { activation_id: activationId, status: 'released' as const, install_code_restored: codeRestored }, meta: { message: 'Activation released.' } }, 200);
  });
}
