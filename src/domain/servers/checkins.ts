import type { Database } from '../../db/database.js';
import { hasSqlState } from '../../db/database-errors.js';
import { composedStatement, sqlPiece } from '../../db/composed-statement.js';
import { runStatement } from '../../db/statement.js';
import type { AgentReport } from '../../schemas/server.js';

/** One agent's check-in, as the route hands it over once the agent token and the body have been read. */
export interface CheckinItem {
  /** SHA-256 of the agent token: the server is found by it in the statement itself. */
  tokenHash: string;
  now: Date;
  /** The start of the current bucket of `checkin-server-hour`, and its quota for this server. */
  bucketStart: Date;
  quota: number;
  /** The validated report; null for a body that was refused (the check-in still counts, and records nothing). */
  report: AgentReport | null;
  /** The client's address, or null when the service could not tell (no socket): then the address columns stay as they are. */
  address: string | null;
}

/** What the statement found for one check-in. */
export type CheckinOutcome =
  /** No server has this agent token: counted nowhere. */
  | { found: false }
  /** The server's bucket was full: counted nowhere, nothing recorded. */
  | { found: true; admitted: false }
  /** Counted (`count` in the bucket now); recorded unless the server is revoked or the body was refused. */
  | { found: true; admitted: true; count: number; status: 'active' | 'revoked'; recorded: boolean };

/** A server (`s`) is recorded by a check-in (`b`) when it is active and the body was taken. */
const RECORDS = sqlPiece([], `s.status = 'active' and b.report is not null`);
/** ... and its address columns move when the service knows the client's address. */
const MOVES = sqlPiece([], `${RECORDS.text} and b.address is not null`);

/**
 * Every check-in of `:batch` (a JSON array, sorted by token hash), in one statement: the server found by
 * its token hash, its check-in counted, and, when admitted, active and with a body, its last seen time,
 * report, agent version and address columns written. Nothing else is read or written; a check-in records
 * no event (it changes no state, and health is derived from `last_seen_at`).
 *
 * The address columns are computed from the row's old values: the same address changes nothing; the
 * address before the last one (A → B → A) counts an alternation; any other address starts afresh. One
 * agent moving once (a new IP) never gets past 0; two copies of one agent checking in from two places go
 * back and forth and climb by one at each switch (DESIGN §16).
 *
 * The per-server hourly count lives on the server's own row (`checkin_bucket_start`, `checkin_count`),
 * not in `rate_limit_buckets` like every other limit: at the design scale (DESIGN §21: a million servers
 * every 300 s, ~3,300 check-ins a second, the primary's largest write load) a bucket row per server and
 * hour would be a second row written by each check-in and a million new bucket rows an hour, where the
 * server's row is written by the check-in anyway: the count rides on that one HOT update (no indexed
 * column changes). It is exact across instances as the buckets are: the row is locked by the update, and
 * a concurrent check-in of the same server re-reads it before its own condition is decided. A refused
 * check-in fails the update's condition, so it changes nothing and counts nowhere; the second branch
 * tells it from an unknown token. A bucket that a skewed instance's clock started later is kept (the
 * later start wins), so two instances around :00 cannot take turns resetting it.
 *
 * Sorted by token hash, a batch locks its rows in that order (a nested loop on the token's unique index,
 * the batch outside), so two batches of two instances never wait on each other in a cycle; a deadlock
 * would still only fail both statements, which are retried once.
 */
export const CHECKIN_STATEMENT = composedStatement<{ batch: string }>()`with batch as (
  select * from json_to_recordset(:batch::json)
    as b(i integer, token_hash text, seen_at timestamptz, bucket_start timestamptz, quota integer, report jsonb, address text)
),
counted as (
  update servers s set
    checkin_bucket_start = greatest(s.checkin_bucket_start, b.bucket_start),
    checkin_count = case when s.checkin_bucket_start >= b.bucket_start then s.checkin_count + 1 else 1 end,
    last_seen_at = case when ${RECORDS} then b.seen_at else s.last_seen_at end,
    last_report = case when ${RECORDS} then b.report else s.last_report end,
    agent_version = case when ${RECORDS} then b.report->>'agent_version' else s.agent_version end,
    last_checkin_ip = case when ${MOVES} then b.address else s.last_checkin_ip end,
    previous_checkin_ip = case when ${MOVES} and s.last_checkin_ip is distinct from b.address then s.last_checkin_ip
                               else s.previous_checkin_ip end,
    address_alternations = case when not (${MOVES}) or s.last_checkin_ip is not distinct from b.address then s.address_alternations
                                when s.previous_checkin_ip is not distinct from b.address then s.address_alternations + 1
                                else 0 end
  from batch b
  where s.agent_token_hash = b.token_hash
    and (s.checkin_bucket_start is null or s.checkin_bucket_start < b.bucket_start or s.checkin_count < b.quota)
  returning b.i, s.status, s.checkin_count, ${RECORDS} as recorded
)
select i, status, checkin_count, recorded from counted
union all
select b.i, s.status, null, false from batch b join servers s on s.agent_token_hash = b.token_hash
where b.i not in (select i from counted)`;

interface CheckinRow {
  i: number;
  status: 'active' | 'revoked';
  /** Null for a refused check-in (the second branch). */
  checkin_count: number | null;
  recorded: boolean;
}

/**
 * Records `items` in one statement (see `CHECKIN_STATEMENT`): each item's outcome, in the order given. At most one
 * item per agent token: an UPDATE changes a row once, so a second check-in of the same server in the same
 * statement would be neither counted nor recorded (`CheckinBatcher` keeps it for the next statement).
 */
async function recordCheckins(db: Database, items: readonly CheckinItem[]): Promise<CheckinOutcome[]> {
  const order = items.map((_, i) => i).sort((a, b) => compare(items[a]!.tokenHash, items[b]!.tokenHash));
  const batch = JSON.stringify(
    order.map((i) => {
      const item = items[i]!;
      return {
        i,
        token_hash: item.tokenHash,
        seen_at: item.now.toISOString(),
        bucket_start: item.bucketStart.toISOString(),
        quota: item.quota,
        report: item.report,
        address: item.address,
      };
    }),
  );
  const rows = await retriedOnDeadlock(() =>
    runStatement<CheckinRow, { batch: string }>(db, CHECKIN_STATEMENT, { batch }),
  );
  const outcomes: CheckinOutcome[] = items.map(() => ({ found: false }));
  for (const row of rows)
    outcomes[row.i] =
      row.checkin_count === null
        ? { found: true, admitted: false }
        : { found: true, admitted: true, count: row.checkin_count, status: row.status, recorded: row.recorded };
  return outcomes;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A statement failed by a deadlock (40P01) is run once more: it changed nothing. */
async function retriedOnDeadlock<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!hasSqlState(error, '40P01')) throw error;
    return run();
  }
}

interface Pending {
  item: CheckinItem;
  resolve: (outcome: CheckinOutcome) => void;
  reject: (error: unknown) => void;
}

/** How many check-in statements an instance runs at once, and how many check-ins one statement takes at most. */
export interface CheckinBatching {
  statements: number;
  maxBatch: number;
}

/** Two statements at once, so that one's round trip and commit overlap the other's; 256 check-ins keep a statement's JSON under ~100 KB. */
const DEFAULT_BATCHING: CheckinBatching = { statements: 2, maxBatch: 256 };

/**
 * Check-ins of one instance, gathered into one statement (`recordCheckins`) per turn of the event loop.
 * A check-in made while the instance's statements are all running waits for one to finish and goes with
 * every other check-in that arrived meanwhile: under load a statement carries tens of check-ins for the
 * price of about one (parsing, planning, a round trip, a commit), so a check-in costs the database and
 * this process a fraction of what a statement of its own cost; when the service is quiet, each goes
 * alone at once. Nothing is held back by a timer: a check-in waits at most for the statement before it.
 *
 * Each check-in keeps its own outcome (the statement answers by item), so none is lost or mixed with
 * another; two check-ins of the same agent token never share a statement, nor run in two at once (the
 * later waits for the earlier's to end), so each is counted, in order. A failed statement fails each of
 * its check-ins, as it would have alone.
 */
export class CheckinBatcher {
  private queue: Pending[] = [];
  private running = 0;
  /** The agent tokens of the statements running: a later check-in of one waits for its statement, so it never overtakes. */
  private readonly runningTokens = new Set<string>();
  private scheduled = false;

  constructor(
    private readonly db: Database,
    private readonly batching: CheckinBatching = DEFAULT_BATCHING,
  ) {}

  /** Records `item` with the check-ins around it; resolves with its own outcome. */
  checkIn(item: CheckinItem): Promise<CheckinOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running >= this.batching.statements || this.queue.length === 0) return;
    this.scheduled = true;
    // After the poll phase: every request whose bytes arrived in this turn has reached its check-in.
    setImmediate(() => {
      this.scheduled = false;
      while (this.running < this.batching.statements && this.queue.length > 0) {
        const batch = this.take();
        if (batch.length === 0) return; // each waits for a statement of its token: its end schedules again
        this.run(batch);
      }
    });
  }

  /** The oldest check-ins, at most `maxBatch`, one per agent token and none of a running statement's; the others keep their place. */
  private take(): Pending[] {
    const batch: Pending[] = [];
    const tokens = new Set<string>();
    const rest: Pending[] = [];
    for (const pending of this.queue) {
      const token = pending.item.tokenHash;
      if (batch.length < this.batching.maxBatch && !tokens.has(token) && !this.runningTokens.has(token)) {
        tokens.add(token);
        batch.push(pending);
      } else rest.push(pending);
    }
    this.queue = rest;
    return batch;
  }

  private run(batch: Pending[]): void {
    this.running += 1;
    for (const p of batch) this.runningTokens.add(p.item.tokenHash);
    recordCheckins(
      this.db,
      batch.map((p) => p.item),
    )
      .then(
        (outcomes) => {
          for (const [i, p] of batch.entries()) p.resolve(outcomes[i]!);
        },
        (error: unknown) => {
          for (const p of batch) p.reject(error);
        },
      )
      .finally(() => {
        this.running -= 1;
        for (const p of batch) this.runningTokens.delete(p.item.tokenHash);
        this.schedule();
      });
  }
}
