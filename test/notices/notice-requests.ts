import { sql } from 'drizzle-orm';
import type { Database } from '../../src/db/database.js';
import { stateCounts } from '../../src/domain/admin-lists/state-counts.js';
import { runNoticePass, type NoticePassOptions } from '../../src/domain/notices/notice-pass.js';
import type { TestApp } from '../support/test-app.js';
import { queryRows } from '../support/test-database.js';

const DEAD_AFTER_SECONDS = 86_400;
/** Long enough that no gap between a test's passes counts as the service's downtime. */
const NEVER_DOWN_MS = 365 * 86_400_000;

/** One notice pass at the test clock's time, as an instance's timer runs it. */
export function noticePass(t: TestApp, options: Partial<NoticePassOptions> = {}, db: Database = t.database.db) {
  return runNoticePass(db, t.clock.now(), {
    thresholds: { deadAfterSeconds: DEAD_AFTER_SECONDS },
    downtimeAfterMs: NEVER_DOWN_MS,
    ...options,
  });
}

/** The notice events in the trail, oldest first. */
export async function noticeEvents(t: TestApp, types: string[]) {
  return queryRows<{
    type: string;
    server_id: string | null;
    install_code_id: string | null;
    actor: string;
    data: any;
  }>(
    t.database.db,
    sql`select type, server_id, install_code_id, actor, data from events where type in (${sql.join(
      types.map((type) => sql`${type}`),
      sql`, `,
    )}) order by id`,
  );
}

/** The servers gauge as /metrics and the console read it, now. */
export async function serverGauge(t: TestApp) {
  return (await stateCounts(t.database.db, t.clock.now(), { deadAfterSeconds: DEAD_AFTER_SECONDS })).servers;
}
