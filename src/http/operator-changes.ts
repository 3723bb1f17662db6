import type { Context } from 'hono';
import type { AppDeps } from '../deps.js';
import { revokeInstallCodeAsOperator } from '../domain/admin/install-code-revoke.js';
import { releaseActivation, type ReleaseResult } from '../domain/activations.js';
import type { ChangeContext } from '../domain/events.js';
import type { InstallCodeRow } from '../domain/install-codes.js';
import { revokeServer, type ServerRow } from '../domain/servers.js';
import type { AppEnv } from './app-env.js';

/**
 * The changes that several routes make (the admin API, the console, the installer's release, an
 * agent's revoke), each with the transitions it counts in the metrics: one place, so no caller counts
 * differently.
 */
type Deps = Pick<AppDeps, 'db' | 'clock'>;

export async function releaseActivationCounted(
  c: Context<AppEnv>,
  deps: Deps,
  activationId: string,
  context: ChangeContext,
  code: 'restore' | 'revoke' = 'restore',
): Promise<ReleaseResult> {
  const result = await releaseActivation(deps.db, { activationId, now: deps.clock.now(), context, code });
  const metrics = c.var.metrics;
  if (result.released) metrics.transition('activation.released', context.actor);
  if (result.released && result.codeRestored) metrics.transition('install_code.restored', context.actor);
  if (result.released && code === 'revoke') metrics.transition('install_code.revoked', context.actor);
  if (result.serverRevoked) metrics.transition('server.revoked', context.actor);
  return result;
}

export async function revokeServerCounted(
  c: Context<AppEnv>,
  deps: Deps,
  serverId: string,
  context: ChangeContext,
): Promise<ServerRow> {
  const { server, revoked } = await revokeServer(deps.db, serverId, deps.clock.now(), context);
  if (revoked) c.var.metrics.transition('server.revoked', context.actor);
  return server;
}

export async function revokeInstallCodeCounted(
  c: Context<AppEnv>,
  deps: Deps,
  installCodeId: string,
  context: ChangeContext,
): Promise<InstallCodeRow> {
  const { code, revoked } = await revokeInstallCodeAsOperator(deps.db, installCodeId, deps.clock.now(), context);
  if (revoked) c.var.metrics.transition('install_code.revoked', context.actor);
  return code;
}
