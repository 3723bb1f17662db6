import { toIsoOffset, wholeSecond } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { composedStatement, sqlPiece } from '../../db/composed-statement.js';
import { runStatement } from '../../db/statement.js';
import { ApiError } from '../../errors.js';
import {
  EVENT_CONTEXT_COLUMNS,
  EVENT_CONTEXT_VALUES,
  eventContextParams,
  noteRecorded,
  RECORDED_COLUMN,
  type ChangeContext,
  type EventContextParams,
  type EventType,
} from '../events/event-trail.js';
import {
  COUNTS_COLUMN,
  countedCte,
  countedStatement,
  type BucketCount,
  type BucketsParam,
  type CountedOutcome,
  type RateLimitCheck,
} from '../rate-limits/limiter.js';
import { generateInstallCode, installCodeHint } from './code-format.js';
import { randomId } from '../tokens/secret-hash.js';
import type { KeyedHashes } from '../tokens/keyed-hashes.js';

export interface IssuedInstallCode {
  /** The public handle (`ic_` + 16 hex), which is not the code. */
  id: string;
  code: string;
  hint: string;
  expiresAt: Date;
  /** Whether a machine must wait for the person's approval (DESIGN §14). */
  requireApproval: boolean;
}

// `:require_approval`: whether a machine waits for the person's decision; `:issued_data`: the event's data.
type IssueParams = BucketsParam &
  EventContextParams & {
    id: string;
    code_hash: string;
    hint: string;
    expires_at: string;
    session_hash: string;
    issued_data: string;
    require_approval: boolean;
  };

// Nothing is counted or written unless the session is valid.
const SESSION_BUCKETS = sqlPiece(
  ['buckets'],
  `case when exists (select from session) then :buckets::json else '[]'::json end`,
);

const ISSUE = composedStatement<IssueParams>()`with session as (select from browser_sessions where token_hash = :session_hash and expires_at > :now::timestamptz),
${countedCte({ buckets: SESSION_BUCKETS })},
issued as (
  insert into install_codes (id, code_hash, hint, status, issued_at, expires_at, browser_session_hash, require_approval)
  select :id, :code_hash, :hint, 'issued', :now::timestamptz, :expires_at::timestamptz, :session_hash, :require_approval::boolean
  where exists (select from session) returning id),
recorded as (
  insert into events (type, install_code_id, data, ${EVENT_CONTEXT_COLUMNS})
  select 'install_code.issued', issued.id, :issued_data::jsonb, ${EVENT_CONTEXT_VALUES} from issued
  returning type)
select exists (select from session) as session, ${COUNTS_COLUMN}, ${RECORDED_COLUMN}`;

/**
 * One statement: checks the browser session, counts the request in `limits` and makes a fresh `issued`
 * code with its event; nothing when the session is not valid (403 `browser_session_required`, thrown
 * before any limit is counted) or a limit is exhausted. The code itself is returned once and stored only
 * as its hash, next to the hash of the browser session that asked for it (whose page may then watch and
 * cancel it).
 */
export async function issueInstallCode(
  db: Database,
  {
    input: { prefix, ttlSeconds, browserSessionHash, requireApproval = false },
    now,
    context,
    limits,
    hashes,
  }: {
    input: {
      /** INSTALL_CODE_PREFIX. */
      prefix: string;
      /** INSTALL_CODE_TTL_SECONDS. */
      ttlSeconds: number;
      browserSessionHash: string;
      requireApproval?: boolean;
    };
    now: Date;
    context: ChangeContext;
    limits: RateLimitCheck[];
    /** How the code is kept (keyed under the KEK when one is set). */
    hashes: KeyedHashes;
  },
): Promise<CountedOutcome<IssuedInstallCode>> {
  const code = generateInstallCode(prefix);
  const issued = {
    id: randomId('ic_', 8),
    code,
    hint: installCodeHint(code),
    expiresAt: new Date(wholeSecond(now).getTime() + ttlSeconds * 1000),
    requireApproval,
  };
  const data = JSON.stringify({
    hint: issued.hint,
    expires_at: toIsoOffset(issued.expiresAt),
    ...(requireApproval ? { require_approval: true } : {}),
  });
  return countedStatement(db, limits, now, async (buckets) => {
    type Row = { session: boolean; counts: BucketCount[] | null; recorded: EventType[] | null };
    const [row] = await runStatement<Row, IssueParams>(db, ISSUE, {
      buckets,
      id: issued.id,
      code_hash: hashes.installCode(code),
      hint: issued.hint,
      expires_at: issued.expiresAt.toISOString(),
      session_hash: browserSessionHash,
      issued_data: data,
      require_approval: requireApproval,
      ...eventContextParams(context, now),
    });
    if (!row!.session) throw new ApiError('browser_session_required');
    noteRecorded(context, row!.recorded);
    return { counts: row!.counts, value: issued };
  });
}
