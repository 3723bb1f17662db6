import { and, eq, getTableColumns } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { activations, servers } from '../../db/schema.js';
import type { ActivationRow } from '../activations.js';
import type { ServerRow } from '../servers.js';
import { afterCursor, pageOf, type Page } from './pagination.js';
import { withinRange, type TimeRange } from './time-range.js';

export interface ActivationListFilter extends TimeRange {
  status?: ActivationRow['status'] | undefined;
  machineId?: string | undefined;
  hostname?: string | undefined;
  publicIp?: string | undefined;
  installCodeId?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface ActivationListItem {
  activation: ActivationRow;
  /** The server registered for the activation, if any. */
  server: ServerRow | undefined;
}

/** Activations, newest first, each with the server registered for it. */
export async function listActivations(db: Database, filter: ActivationListFilter): Promise<Page<ActivationListItem>> {
  const page = afterCursor(activations.createdAt, activations.id, filter.cursor);
  const conditions = [
    page.where,
    filter.status ? eq(activations.status, filter.status) : undefined,
    filter.machineId ? eq(activations.machineId, filter.machineId) : undefined,
    filter.hostname ? eq(activations.hostname, filter.hostname) : undefined,
    filter.publicIp ? eq(activations.publicIp, filter.publicIp) : undefined,
    filter.installCodeId ? eq(activations.installCodeId, filter.installCodeId) : undefined,
    ...withinRange(activations.createdAt, filter),
  ];
  const rows = await db
    .select({ activation: getTableColumns(activations), server: getTableColumns(servers) })
    .from(activations)
    .leftJoin(servers, eq(servers.activationId, activations.id))
    .where(and(...conditions))
    .orderBy(...page.orderBy)
    .limit(filter.limit + 1);
  return pageOf(
    rows,
    filter.limit,
    (row) => ({ activation: row.activation, server: row.server ?? undefined }),
    (row) => ({ t: row.activation.createdAt.getTime(), id: row.activation.id }),
  );
}
