import { showServer } from '../../domain/admin-lists/object-shows.js';
import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset } from '../../clock.js';
import type { AppDeps } from '../../deps.js';
import { listServers, type ServerListItem } from '../../domain/admin-lists/server-list.js';
import { COPIED_AGENT_ALTERNATIONS, revokeServer } from '../../domain/servers/registration.js';
import { ApiError } from '../../errors.js';
import { emptyJsonBodyAsObject } from '../../http/body-guards.js';
import { operatorChangeContext } from '../../http/change-context.js';
import { OperatorActionRequestSchema } from '../../schemas/admin/operator-reason.js';
import type { Router } from '../../http/router.js';
import { search, timeRange } from '../../schemas/admin/list.js';
import {
  ServerIdParamsSchema,
  ServerListQuerySchema,
  ServerPageSchema,
  ServerRecordAdminSchema,
  ServerWithEventsSchema,
} from '../../schemas/admin/servers.js';
import { successEnvelope } from '../../schemas/envelope.js';
import { RevokeResultSchema, type AgentReport } from '../../schemas/server.js';
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
  path: '/api/v2/admin/servers',
  operationId: 'listServers',
  ...adminOperation('read'),
  summary: 'List servers and their health',
  description: prose`Registered servers, newest first, with their health derived from check-ins (\`active\`, \`stale\` after
    two missed check-in intervals, \`dead\` after \`SERVER_DEAD_AFTER_SECONDS\`, \`revoked\`), last check-in,
    agent version and last report; never the agent token. Search: \`q\` (part of the hostname, or the start of the id), \`ip\`
    (an address or a CIDR network: the registered public IP), \`machine_id\`, \`ssh_fingerprint\`. Filters:
    \`status\` (a health), \`hostname\` (exact), \`since\`/\`until\` on the registration time. ${EXPORT_SENTENCE} ${ADMIN_AUTH_SENTENCE}`,
  request: { query: ServerListQuerySchema },
  responses: {
    ...listResponse('One page of servers, or every matching one as NDJSON.', ServerPageSchema, ServerRecordAdminSchema),
    ...adminErrorResponses(),
  },
});

const show = createRoute({
  method: 'get',
  path: '/api/v2/admin/servers/{server_id}',
  operationId: 'getServer',
  ...adminOperation('read'),
  summary: 'One server with its events',
  description: prose`The server as \`listServers\` shows it (its health as of now), with \`events\`: every event about it,
    oldest first (registered, revoked, each with its actor, and an operator's name and reason). An unknown id
    is 404 \`server_not_found\`. ${ADMIN_AUTH_SENTENCE}`,
  request: { params: ServerIdParamsSchema },
  responses: {
    200: {
      description: 'The server and its events.',
      content: { 'application/json': { schema: successEnvelope(ServerWithEventsSchema) } },
    },
    ...adminErrorResponses('server_not_found'),
  },
});

const revoke = createRoute({
  method: 'post',
  path: '/api/v2/admin/servers/{server_id}/revoke',
  operationId: 'revokeServerAsOperator',
  ...adminOperation('write', emptyJsonBodyAsObject),
  summary: 'Revoke a server',
  description: prose`The operator revoke of \`POST /revoke\`, by path: the server's next check-in answers \`status: "revoked"\`
    and its reports are no longer recorded. Recorded as \`server.revoked\` with the operator as actor.
    Idempotent: a revoked server answers 200 with its first \`revoked_at\`. The body is optional: \`{"reason":
    "…"}\` says why, kept in the event with the operator's name. ${ADMIN_AUTH_SENTENCE}`,
  request: {
    params: ServerIdParamsSchema,
    body: { required: false, content: { 'application/json': { schema: OperatorActionRequestSchema } } },
  },
  responses: {
    200: {
      description: 'The server is revoked.',
      content: { 'application/json': { schema: successEnvelope(RevokeResultSchema) } },
    },
    ...adminErrorResponses('server_not_found', 'unsupported_media_type', 'payload_too_large'),
  },
});

function toRecord({ server: s, health }: ServerListItem) {
  return {
    server_id: s.id,
    activation_id: s.activationId,
    status: s.status,
    health,
    hostname: s.hostname,
    public_ip: s.publicIp,
    machine_id: s.machineId,
    ssh_fingerprint: s.sshFingerprint,
    agent_version: s.agentVersion,
    registered_at: toIsoOffset(s.registeredAt),
    last_seen_at: s.lastSeenAt ? toIsoOffset(s.lastSeenAt) : null,
    revoked_at: s.revokedAt ? toIsoOffset(s.revokedAt) : null,
    last_report: (s.lastReport as AgentReport | null) ?? null,
    agent_copy_suspected: s.addressAlternations >= COPIED_AGENT_ALTERNATIONS,
    checkin_addresses: [s.lastCheckinIp, s.previousCheckinIp].filter((ip): ip is string => ip !== null),
    tags: s.tags,
  };
}

export function registerAdminServers(app: Router, deps: AppDeps): void {
  app.openapi(list, async (c) => {
    const query = c.req.valid('query');
    const filter = { ...query, ...search(query), health: query.status, ...timeRange(query) };
    const now = deps.clock.now();
    return listAnswer(
      c,
      query,
      (reader, cursor, limit) =>
        listServers(reader, { ...filter, cursor, limit }, now, {
          deadAfterSeconds: deps.config.serverDeadAfterSeconds,
        }),
      toRecord,
      'servers',
    );
  });

  app.openapi(show, async (c) => {
    const { server_id: id } = c.req.valid('param');
    const thresholds = { deadAfterSeconds: deps.config.serverDeadAfterSeconds };
    const shown = await c.get('read')((reader) => showServer(reader, id, deps.clock.now(), thresholds));
    if (!shown) throw new ApiError('server_not_found');
    const { item, history } = shown;
    return c.json(
      {
        data: { ...toRecord(item), events: history.map(toEventRecord) },
        meta: { message: `${id} and ${history.length} events.` },
      },
      200,
    );
  });

  app.openapi(revoke, async (c) => {
    const { server_id } = c.req.valid('param');
    // Without a body (no Content-Type) the validator does not run.
    const context = operatorChangeContext(c, c.req.valid('json')?.reason ?? null);
    const { server } = await revokeServer(c.get('db'), server_id, deps.clock.now(), context);
    return c.json(
      {
        data: { server_id: server.id, status: 'revoked' as const, revoked_at: toIsoOffset(server.revokedAt!) },
        meta: { message: 'Server revoked.' },
      },
      200,
    );
  });
}
