import { showActivation } from '../../domain/admin-lists/object-shows.js';
import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset } from '../../clock.js';
import type { AppDeps } from '../../deps.js';
import { listActivations, type ActivationListItem } from '../../domain/admin-lists/activation-list.js';
import { serverHealth, type HealthThresholds } from '../../domain/admin-lists/server-list.js';
import { ApiError } from '../../errors.js';
import { emptyJsonBodyAsObject } from '../../http/body-guards.js';
import { operatorChangeContext } from '../../http/change-context.js';
import { releaseActivation } from '../../domain/activations/release.js';
import type { Router } from '../../http/router.js';
import { ReleaseResultSchema } from '../../schemas/activation.js';
import {
  ActivationIdParamsSchema,
  ActivationListQuerySchema,
  ActivationPageSchema,
  ActivationRecordSchema,
  ActivationWithEventsSchema,
  OperatorReleaseRequestSchema,
} from '../../schemas/admin/activations.js';
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
  path: '/api/v2/admin/activations',
  operationId: 'listActivations',
  ...adminOperation('read'),
  summary: 'List activations',
  description: prose`Activations, newest first, each with its machine binding, requested ref, installer version, times and the
    server registered for it; never the install token. Search: \`q\` (part of the hostname, or the start of the id), \`ip\` (an
    address or a CIDR network), \`machine_id\`, \`ssh_fingerprint\`. Filters: \`status\`, \`hostname\`,
    \`public_ip\` (exact), \`install_code_id\`, \`duplicate\` (flagged as a duplicate machine or not:
    \`duplicate_of\`), \`ssh_key_proven\` (the machine proved its SSH host key at activate, or not), \`since\`/\`until\` on the creation time. ${EXPORT_SENTENCE} ${ADMIN_AUTH_SENTENCE}`,
  request: { query: ActivationListQuerySchema },
  responses: {
    ...listResponse(
      'One page of activations, or every matching one as NDJSON.',
      ActivationPageSchema,
      ActivationRecordSchema,
    ),
    ...adminErrorResponses(),
  },
});

const show = createRoute({
  method: 'get',
  path: '/api/v2/admin/activations/{activation_id}',
  operationId: 'getActivation',
  ...adminOperation('read'),
  summary: 'One activation with its events',
  description: prose`The activation as \`listActivations\` shows it, with \`events\`: every event about it, oldest first
    (created, confirmed or released, its server registered and revoked, its code's, each with its actor, and
    an operator's name and reason). An unknown id is 404 \`activation_not_found\`. ${ADMIN_AUTH_SENTENCE}`,
  request: { params: ActivationIdParamsSchema },
  responses: {
    200: {
      description: 'The activation and its events.',
      content: { 'application/json': { schema: successEnvelope(ActivationWithEventsSchema) } },
    },
    ...adminErrorResponses('activation_not_found'),
  },
});

const release = createRoute({
  method: 'post',
  path: '/api/v2/admin/activations/{activation_id}/release',
  operationId: 'releaseActivation',
  ...adminOperation('write', emptyJsonBodyAsObject),
  summary: 'Force-release an activation',
  description: prose`Releases an unconfirmed activation as the installer's release does: a server registered for it is revoked
    in the same transaction, and the code is restored when its install token is unused and unexpired and the
    code unexpired. With \`{"restore_install_code": false}\` the code is revoked instead, so that it can never
    be used again. Recorded as \`activation.released\` (\`released_by: "operator"\`) with
    \`install_code.restored\` or \`install_code.revoked\` and \`server.revoked\` as they apply. The body is
    optional; its \`reason\` says why, kept in the events with the operator's name. Idempotent: releasing a
    released activation answers 200 with what its first release answered. A confirmed activation is 409
    \`activation_confirmed\`: revoke its server instead. ${ADMIN_AUTH_SENTENCE}`,
  request: {
    params: ActivationIdParamsSchema,
    body: { required: false, content: { 'application/json': { schema: OperatorReleaseRequestSchema } } },
  },
  responses: {
    200: {
      description: 'The activation is released.',
      content: { 'application/json': { schema: successEnvelope(ReleaseResultSchema) } },
    },
    ...adminErrorResponses(
      'activation_not_found',
      'activation_confirmed',
      'unsupported_media_type',
      'payload_too_large',
    ),
  },
});

function toRecord({ activation: a, server }: ActivationListItem, now: Date, thresholds: HealthThresholds) {
  return {
    activation_id: a.id,
    install_code_id: a.installCodeId,
    status: a.status,
    machine_binding: {
      hostname: a.hostname,
      public_ip: a.publicIp,
      machine_id: a.machineId,
      ssh_fingerprint: a.sshFingerprint,
      ssh_key_proven: a.sshKeyProven,
    },
    requested_ref: a.requestedRef,
    installer_version: a.installerVersion,
    created_at: toIsoOffset(a.createdAt),
    install_token_expires_at: toIsoOffset(a.installTokenExpiresAt),
    confirmed_at: a.confirmedAt ? toIsoOffset(a.confirmedAt) : null,
    released_at: a.releasedAt ? toIsoOffset(a.releasedAt) : null,
    install_code_restored: a.status === 'released' ? (a.codeRestored ?? false) : null,
    duplicate_of: a.duplicateOf,
    server: server
      ? {
          server_id: server.id,
          status: server.status,
          health: serverHealth(server, now, thresholds),
          last_seen_at: server.lastSeenAt ? toIsoOffset(server.lastSeenAt) : null,
        }
      : null,
    tags: a.tags,
  };
}

export function registerAdminActivations(app: Router, deps: AppDeps): void {
  const thresholds = { deadAfterSeconds: deps.config.serverDeadAfterSeconds };

  app.openapi(list, async (c) => {
    const query = c.req.valid('query');
    const now = deps.clock.now();
    const duplicate = query.duplicate === undefined ? undefined : query.duplicate === 'true';
    const filter = {
      ...query,
      ...search(query),
      duplicate,
      sshKeyProven: query.ssh_key_proven === undefined ? undefined : query.ssh_key_proven === 'true',
      publicIp: query.public_ip,
      installCodeId: query.install_code_id,
      ...timeRange(query),
    };
    return listAnswer(
      c,
      query,
      (reader, cursor, limit) => listActivations(reader, { ...filter, cursor, limit }),
      (item) => toRecord(item, now, thresholds),
      'activations',
    );
  });

  app.openapi(show, async (c) => {
    const { activation_id: id } = c.req.valid('param');
    const shown = await c.get('read')((reader) => showActivation(reader, id));
    if (!shown) throw new ApiError('activation_not_found');
    const { item, history } = shown;
    return c.json(
      {
        data: { ...toRecord(item, deps.clock.now(), thresholds), events: history.map(toEventRecord) },
        meta: { message: `${id} and ${history.length} events.` },
      },
      200,
    );
  });

  app.openapi(release, async (c) => {
    const { activation_id } = c.req.valid('param');
    // Without a body (no Content-Type) the validator does not run, so its default does not apply either.
    const body = c.req.valid('json');
    const restore = body?.restore_install_code !== false;
    const context = operatorChangeContext(c, body?.reason ?? null);
    const { activationId, codeRestored } = await releaseActivation(c.get('db'), {
      activationId: activation_id,
      now: deps.clock.now(),
      context,
      code: restore ? 'restore' : 'revoke',
    });
    return c.json(
      {
        data: { activation_id: activationId, status: 'released' as const, install_code_restored: codeRestored },
        meta: { message: 'Activation released.' },
      },
      200,
    );
  });
}
