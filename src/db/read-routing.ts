// Which database an operator's read goes to (DESIGN §21). A read that may be a little behind (admin
// lists, search, NDJSON export, object history, console views, fleet gauges) is written as
// `reads.read((reader) => …, operator)`; everything else (the install steps, the page's status, the
// legacy routes, a read that follows a write, and everything that authorizes) reads the primary,
// `deps.db`, as before. Without DATABASE_READ_URL both are the primary.
import type { Database } from './database.js';
import { hasSqlState, isDatabaseUnavailable } from './database-errors.js';
import type { ReadReplica } from './read-replica.js';

/** After an operator's own write, their reads stay on the primary this long: they see what they did. */
const READ_YOUR_WRITES_MS = 30_000;

export interface ReadRouting {
  /**
   * Runs `read` on the replica when it is usable and `operator` (if any) has not written in the last 30 s,
   * else on the primary. A read the replica fails (unreachable, or cancelled by a conflict with recovery)
   * is run again on the primary.
   */
  read<T>(read: (reader: Database) => Promise<T>, operator?: string): Promise<T>;
  /** `operator` changed something: their reads go to the primary for READ_YOUR_WRITES_MS. */
  wrote(operator: string): void;
  /** The replica's replay lag at its last probe; undefined without a replica or while none answers. */
  replicaLagSeconds(): number | undefined;
}

/** No replica: every read is the primary's. */
export function primaryReads(primary: Database): ReadRouting {
  return { read: (read) => read(primary), wrote: () => {}, replicaLagSeconds: () => undefined };
}

/**
 * A replica's reads that fail because of the replica, not of the read: it cannot be reached, a statement
 * ran past its limit there, or replay cancelled it (40001 "conflict with recovery", as a long export page
 * can be when the standby's max_standby_streaming_delay runs out).
 */
function replicaFailed(error: unknown): boolean {
  return isDatabaseUnavailable(error) || hasSqlState(error, '40001');
}

export function replicaReads(options: { primary: Database; replica: ReadReplica; now: () => number }): ReadRouting {
  const { primary, replica, now } = options;
  /** When each operator last wrote (ms): only those within the window are kept. */
  const lastWrites = new Map<string, number>();
  const recentlyWrote = (operator: string | undefined) => {
    if (operator === undefined) return false;
    const at = lastWrites.get(operator);
    if (at === undefined) return false;
    if (now() - at < READ_YOUR_WRITES_MS) return true;
    lastWrites.delete(operator);
    return false;
  };
  return {
    async read(read, operator) {
      if (!replica.usable || recentlyWrote(operator)) return read(primary);
      try {
        return await read(replica.db);
      } catch (error) {
        if (!replicaFailed(error)) throw error;
        if (isDatabaseUnavailable(error)) replica.reportFailure();
        return read(primary);
      }
    },
    wrote(operator) {
      lastWrites.set(operator, now());
    },
    replicaLagSeconds: () => replica.lagSeconds,
  };
}
