import { and, eq, isNull } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import type { Database } from '../../db/database.js';
import { activations, servers } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { recordEvent, type ChangeContext } from '../events/event-trail.js';
import { randomId, randomSecret, sha256Hex } from '../tokens/secret-hash.js';
import { assertInstallTokenJti } from '../tokens/install-step-tokens.js';

export type ServerRow = typeof servers.$inferSelect;

/** How often agents are told to check in. */
export const CHECKIN_INTERVAL_SECONDS = 300;

/**
 * Records the server of an activation that is still `activated` with its install token unused and
 * unexpired, and makes its agent token (returned once, stored as SHA-256). Register does not consume
 * the install token: confirm does. The unique `activation_id` makes concurrent registers give one server.
 * Repeated by the token's holder before the server's first check-in (an answer a failover swallowed,
 * DESIGN §20): a new agent token replaces the one the lost answer carried, which no longer works
 * (`reissued`, event `server.agent_token_reissued`); after a check-in, 409 `server_already_registered`.
 */
export async function registerServer(
  db: Database,
  input: { activationId: string; installTokenJti: string; agentVersion: string },
  now: Date,
  context: ChangeContext,
): Promise<{ server: ServerRow; agentToken: string; reissued: boolean }> {
  return db.transaction(async (tx) => {
    // Locked so that a confirm or release cannot slip between these checks and the insert.
    const [activation] = await tx
      .select()
      .from(activations)
      .where(eq(activations.id, input.activationId))
      .for('update');
    if (!activation) throw new ApiError('activation_not_found');
    assertInstallTokenJti(activation, input.installTokenJti);
    if (activation.status === 'released') throw new ApiError('activation_released');
    if (activation.status === 'confirmed' || activation.installTokenUsedAt !== null)
      throw new ApiError('install_token_used');
    if (activation.installTokenExpiresAt.getTime() <= now.getTime()) throw new ApiError('install_token_invalid');

    const agentToken = randomSecret();
    const [server] = await tx
      .insert(servers)
      .values({
        id: randomId('srv_', 8),
        activationId: activation.id,
        agentTokenHash: sha256Hex(agentToken),
        hostname: activation.hostname,
        publicIp: activation.publicIp,
        machineId: activation.machineId,
        sshFingerprint: activation.sshFingerprint,
        agentVersion: input.agentVersion,
        status: 'active',
        registeredAt: now,
        tags: activation.tags,
      })
      .onConflictDoNothing({ target: servers.activationId })
      .returning();
    if (!server) return reissueAgentToken(tx, activation, agentToken, input.agentVersion, now, context);
    await recordEvent(tx, context, now, {
      type: 'server.registered',
      installCodeId: activation.installCodeId,
      activationId: activation.id,
      serverId: server.id,
      data: {
        hostname: server.hostname,
        agent_version: server.agentVersion,
        ...(Object.keys(server.tags).length > 0 ? { tags: server.tags } : {}),
      },
    });
    return { server, agentToken, reissued: false };
  });
}

/** The registered server of `activation` gets `agentToken` instead of its first one, while it never checked in. */
async function reissueAgentToken(
  tx: Database,
  activation: typeof activations.$inferSelect,
  agentToken: string,
  agentVersion: string,
  now: Date,
  context: ChangeContext,
): Promise<{ server: ServerRow; agentToken: string; reissued: boolean }> {
  const [server] = await tx
    .update(servers)
    .set({ agentTokenHash: sha256Hex(agentToken), agentVersion })
    .where(and(eq(servers.activationId, activation.id), eq(servers.status, 'active'), isNull(servers.lastSeenAt)))
    .returning();
  if (!server) throw new ApiError('server_already_registered');
  await recordEvent(tx, context, now, {
    type: 'server.agent_token_reissued',
    installCodeId: activation.installCodeId,
    activationId: activation.id,
    serverId: server.id,
    data: { hostname: server.hostname, agent_version: server.agentVersion },
  });
  return { server, agentToken, reissued: true };
}

/** The server an agent token belongs to (revoked ones included), or undefined. */
export async function findServerByAgentToken(db: Database, agentToken: string): Promise<ServerRow | undefined> {
  const [row] = await db
    .select()
    .from(servers)
    .where(eq(servers.agentTokenHash, sha256Hex(agentToken)));
  return row;
}

/** Applies `values` if the server is still active; either way answers its row (undefined if there is none) and whether it changed. */
async function updateIfActive(
  db: Database,
  serverId: string,
  values: PgUpdateSetSource<typeof servers>,
): Promise<{ row: ServerRow | undefined; changed: boolean }> {
  const [updated] = await db
    .update(servers)
    .set(values)
    .where(and(eq(servers.id, serverId), eq(servers.status, 'active')))
    .returning();
  if (updated) return { row: updated, changed: true };
  const [current] = await db.select().from(servers).where(eq(servers.id, serverId));
  return { row: current, changed: false };
}

/** One agent token that alternates this many times between two addresses is flagged (DESIGN §16: a copied agent). */
export const COPIED_AGENT_ALTERNATIONS = 3;

/** Marks a server revoked. Idempotent: a revoked server keeps its first `revoked_at` (and `revoked` is false); only the first revoke is an event. */
export async function revokeServer(
  db: Database,
  serverId: string,
  now: Date,
  context: ChangeContext,
): Promise<{ server: ServerRow; revoked: boolean }> {
  return db.transaction(async (tx) => {
    const { row, changed } = await updateIfActive(tx, serverId, { status: 'revoked', revokedAt: now });
    if (!row) throw new ApiError('server_not_found');
    if (changed)
      await recordEvent(tx, context, now, {
        type: 'server.revoked',
        activationId: row.activationId,
        serverId,
        data: { cause: 'revoked' },
      });
    return { server: row, revoked: changed };
  });
}
