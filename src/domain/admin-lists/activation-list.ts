import { eq, getTableColumns, isNotNull, isNull } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { activations, servers } from '../../db/schema.js';
import type { ActivationRow } from '../activations/activation-rows.js';
import type { ServerRow } from '../servers/registration.js';
import { machineMatching, matching, newestFirst, tagged, textOrIdMatching, type SearchFilter } from './list-query.js';
import { pageOf, type Page } from './pagination.js';
import type { TimeRange } from './time-range.js';

/** `search.q` looks in the hostname, and at the start of the activation's id. */
export interface ActivationListFilter extends TimeRange, SearchFilter {
  /** One activation by its id (`GET …/activations/{activation_id}`). */
  id?: string | undefined;
  status?: ActivationRow['status'] | undefined;
  hostname?: string | undefined;
  publicIp?: string | undefined;
  installCodeId?: string | undefined;
  /** true: only the activations flagged as duplicates (§16); false: only the others. */
  duplicate?: boolean | undefined;
  /** true: only the activations whose machine proved its SSH host key (DESIGN §24); false: only the others. */
  sshKeyProven?: boolean | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** What a list shows of an activation: never its token hashes (an export reads a million rows: only what it shows). */
type ListedActivation = Omit<
  ActivationRow,
  'installTokenJtiHash' | 'installTokenUsedAt' | 'precheckJtiHash' | 'precheckClientKeyHash'
>;

/** What a list shows of an activation's server: its id, and what its health is told from. */
type ListedServer = Pick<ServerRow, 'id' | 'status' | 'registeredAt' | 'lastSeenAt'>;

export interface ActivationListItem {
  activation: ListedActivation;
  /** The server registered for the activation, if any. */
  server: ListedServer | undefined;
}

const {
  installTokenJtiHash: _jti,
  installTokenUsedAt: _used,
  precheckJtiHash: _precheck,
  precheckClientKeyHash: _precheckClient,
  ...listedActivation
} = getTableColumns(activations);
const listedServer = {
  id: servers.id,
  status: servers.status,
  registeredAt: servers.registeredAt,
  lastSeenAt: servers.lastSeenAt,
};

/** Activations, newest first, each with the server registered for it. */
export async function listActivations(db: Database, filter: ActivationListFilter): Promise<Page<ActivationListItem>> {
  const page = newestFirst(activations.createdAt, activations.id, filter, [
    ...matching([
      [activations.id, filter.id],
      [activations.status, filter.status],
      [activations.hostname, filter.hostname],
      [activations.publicIp, filter.publicIp],
      [activations.installCodeId, filter.installCodeId],
    ]),
    filter.sshKeyProven === undefined ? undefined : eq(activations.sshKeyProven, filter.sshKeyProven),
    filter.duplicate === undefined
      ? undefined
      : filter.duplicate
        ? isNotNull(activations.duplicateOf)
        : isNull(activations.duplicateOf),
    textOrIdMatching(activations.hostname, { column: activations.id, prefix: 'act_' }, filter.q),
    ...machineMatching(activations, filter),
    tagged(activations.tags, filter.tag),
  ]);
  const rows = await db
    .select({ activation: listedActivation, server: listedServer })
    .from(activations)
    .leftJoin(servers, eq(servers.activationId, activations.id))
    .where(page.where)
    .orderBy(...page.orderBy)
    .limit(filter.limit + 1);
  return pageOf(
    rows,
    filter.limit,
    (row) => ({ activation: row.activation, server: row.server ?? undefined }),
    (row) => ({ t: row.activation.createdAt.getTime(), id: row.activation.id }),
  );
}
