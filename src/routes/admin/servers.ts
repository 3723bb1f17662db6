import { createRoute } from '@hono/zod-openapi';
import { toIsoOffset } from '../../clock.js';
import type { AppDeps } from '../../deps.js';
import { listServers, type ServerListItem } from '../../domain/admin/server-list.js';
import { COPIED_AGENT_ALTERNATIONS, revokeServer } from '../../domain/servers.js';
import { changeContext } from '../../http/change-context.js';
import type { Router } from '../../http/router.js';
import { timeRange } from '../../schemas/admin/list.js';
import { ServerIdParamsSchema, ServerListQuerySchema, ServerPageSchema } from '../../schemas/admin/servers.js';
import { successEnvelope } from '../../schemas/envelope.js';
import { RevokeResultSchema, type AgentReport } from '../../schemas/server.js';
import { ADMIN_AUTH_SENTENCE, adminErrorResponses, adminOperation } from './admin-route.js';

const list = createRoute({
  method: 'get',
  path: '/api/v2/admin/servers',
  operationId: 'listServers',
  ...adminOperation,
  summary: 'List servers and their health',
  description: `Registered servers, newest first, with their health derived from check-ins (\`active\`, \`stale\` after two missed check-in intervals, \`dead\` after \`SERVER_DEAD_AFTER_SECONDS\`, \`revoked\`), last check-in, agent version and last report; never the agent token. Filters: \`status\` (a health), \`hostname\`, \`machine_id\`, \`since\`/\`until\` on the registration time. ${ADMIN_AUTH_SENTENCE}`,
  request: { query: ServerListQuerySchema },
  responses: {
    200: { description: 'One page of servers.', content: { 'application/json': { schema: successEnvelope(ServerPageSchema) } } },
    ...adminErrorResponses(),
  },
});

const revoke = createRoute({
  method: 'post',
  path: '/api/v2/admin/servers/{server_id}/revoke',
  operationId: 'revokeServerAsOperator',
  ...adminOperation,
  summary: 'Revoke a server',
  description: `The operator revoke of \`POST /revoke\`, by path: the server's next check-in answers \`status: "revoked"\` and its reports are no longer recorded. Recorded as \`server.revoked\` with the operator as actor. Idempotent: a revoked server answers 200 with its first \`revoked_at\`. No body. ${ADMIN_AUTH_SENTENCE}`,
  request: { params: ServerIdParamsSchema },
  responses: {
    200: { description: 'The server is revoked.', content: { 'application/json': { schema: successEnvelope(RevokeResultSchema) } } },
    ...adminErrorResponses('server_not_found'),
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
  };
}

export function registerAdminServers(app: Router, deps: AppDeps): void {
  app.openapi(list, async (c) => {
    const query = c.req.valid('query');
    const filter = { ...query, health: query.status, machineId: query.machine_id, ...timeRange(query) };
    const page = await listServers(deps.db, filter, deps.clock.now(), { deadAfterSeconds: deps.config.serverDeadAfterSeconds });
    return c.json({ data: { items: page.items.map(toRecord), next_cursor: page.nextCursor }, meta: { message: `${page.items.length} servers.` } }, 200);
  });

  app.openapi(revoke, async (c) => {
    const { server_id } = c.req.valid('param');
    const context = changeContext(c, 'operator');
    const { server, revoked } = await revokeServer(deps.db, server_id, deps.clock.now(), context);
    if (revoked) c.var.metrics.transition('server.revoked', context.actor);
    return c.json({ data: { server_id: server.id, status: 'revoked' as const, revoked_at: toIsoOffset(server.revokedAt!) }, meta: { message: 'Server revoked.' } }, 200);
  });
}
