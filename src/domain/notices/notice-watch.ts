import type { Database } from '../../db/database.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement, timestampOf } from '../../db/statement.js';

/**
 * The service's own downtime, as the notices see it (DESIGN §28): while no instance runs the pass, no
 * instance answers check-ins either, so a server's silence over that time is not its own. Each pass notes
 * itself on one shared row; a gap between two passes (of any instance) longer than `downtimeAfterMs` is the
 * service's downtime, kept as the last one (`down_from`, `down_until`).
 */
export interface ServiceDowntime {
  from: Date;
  until: Date;
}

type WatchParams = { now: string; gap_ms: string };

const NOTE_PASS = namedStatement<WatchParams>(`
insert into notice_watch as w (name, last_pass_at) values ('notices', :now::timestamptz)
on conflict (name) do update set
  down_from = case when :now::timestamptz - w.last_pass_at > make_interval(secs => :gap_ms::bigint / 1000.0) then w.last_pass_at else w.down_from end,
  down_until = case when :now::timestamptz - w.last_pass_at > make_interval(secs => :gap_ms::bigint / 1000.0) then :now::timestamptz else w.down_until end,
  last_pass_at = greatest(w.last_pass_at, :now::timestamptz)
returning down_from::text, down_until::text`);

/** Notes this pass, and answers the service's last downtime (none: it has not been down since the notices began). */
export async function notePass(db: Database, now: Date, downtimeAfterMs: number): Promise<ServiceDowntime | undefined> {
  const [row] = await runStatement<{ down_from: string | null; down_until: string | null }, WatchParams>(
    db,
    NOTE_PASS,
    { now: now.toISOString(), gap_ms: String(downtimeAfterMs) },
  );
  if (!row?.down_from || !row.down_until) return undefined;
  return { from: timestampOf(row.down_from), until: timestampOf(row.down_until) };
}
