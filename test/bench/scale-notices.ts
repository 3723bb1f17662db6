// `BENCH_ONLY=scale BENCH_SCALE_PART=notices`: DESIGN §28's storm at the design scale. BENCH_ROWS servers (a million
// by default; the scale bench's fill, every one made active) all check in last just past the stale threshold; a
// standard webhook endpoint and a Slack one point at loopback receivers that count what they get. The notice pass
// runs as main.ts starts it (startNoticePass on the service's own pool, with its statement timeout), with an
// injected clock standing still, until every server's `went_stale` is written; then the delivery worker runs as
// main.ts runs it for the first minute after the storm (60 passes, the injected clock a second further each).
// It prints the passes, batches and statements, the time per batch and in all, rows/s, what the event partitions
// grew by, and the messages each endpoint received in that minute (a chat endpoint: one, a digest).
// The database: BENCH_SCALE_URL (one filled before: its servers are reset here), else a fresh one, dropped after
// unless BENCH_SCALE_KEEP is set. Nothing is asserted; heavy: run it alone, under `nice`.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.js';
import type { Database } from '../../src/db/database.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import * as schema from '../../src/db/schema.js';
import { ensurePartitionsAhead } from '../../src/db/time-partitions.js';
import { healthCutoffs } from '../../src/domain/admin-lists/server-list.js';
import { startNoticePass } from '../../src/domain/notices/notice-pass.js';
import { createWebhookWorker } from '../../src/domain/webhooks/delivery-loop.js';
import { createWebhookEndpoint, type WebhookFormat } from '../../src/domain/webhooks/endpoints.js';
import { createLogger } from '../../src/logger.js';
import { fillFleet } from '../support/fleet-rows.js';
import { createScratchDatabase } from '../support/scratch-database.js';

const MiB = 1024 * 1024;
const thresholds = { deadAfterSeconds: 86_400 };

/** A loopback receiver that answers 200 and counts the requests it got. */
async function countingReceiver() {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`),
    received: () => count,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The events partitions' size on disk (tables, indexes, TOAST), bytes. */
async function eventPartitionBytes(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ bytes: string }>(
    `select coalesce(sum(pg_total_relation_size(i.inhrelid)), 0)::bigint as bytes
     from pg_inherits i join pg_class p on p.oid = i.inhparent where p.relname = 'events'`,
  );
  return Number(rows[0]!.bytes);
}

/** Every server active, last seen a second past the stale threshold at `now`, never told about. */
async function allJustStale(pool: pg.Pool, now: Date): Promise<number> {
  const lastSeen = new Date(healthCutoffs(now, thresholds).staleBefore - 1000);
  const { rowCount } = await pool.query(
    `update servers set status = 'active', revoked_at = null, notified_health = 'active', last_seen_at = $1`,
    [lastSeen.toISOString()],
  );
  await pool.query('delete from notice_watch');
  await pool.query('vacuum analyze servers');
  await pool.query('checkpoint');
  return rowCount ?? 0;
}

async function addEndpoint(db: Database, url: URL, format: WebhookFormat, now: Date) {
  await createWebhookEndpoint(db, {
    input: { url, events: ['server.went_stale'], description: `bench ${format}`, format },
    sealing: { kek: undefined, required: false },
    now,
    context: { actor: 'operator', operator: 'root' },
  });
}

export async function benchScaleNotices(adminUrl: string, { rows }: { rows: number }): Promise<void> {
  const given = process.env.BENCH_SCALE_URL;
  const scratch = given ? undefined : await createScratchDatabase(adminUrl, 'slowdns_bench');
  const url = given ?? scratch!.url;
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  // Each statement the service's pool sends, with its time: a pass begins with its notice_watch statement.
  const statements: { text: string; at: number; ms: number }[] = [];
  const service = await openDatabase({
    databaseUrl: url,
    dataDir: 'unused',
    traceStatement: async (text, run) => {
      const at = performance.now();
      try {
        return await run();
      } finally {
        statements.push({ text, at, ms: performance.now() - at });
      }
    },
  });
  const receivers = { standard: await countingReceiver(), slack: await countingReceiver() };
  try {
    if (scratch) {
      await migrateDatabase(service.db);
      const at = performance.now();
      // Filled without the service's statement timeout: one statement fills each table.
      await fillFleet(drizzle({ client: pool, schema }) as unknown as Database, rows, new Date());
      console.log(`filled ${rows} codes, activations and servers in ${((performance.now() - at) / 1000).toFixed(0)} s`);
      if (process.env.BENCH_SCALE_KEEP) console.log(`kept: BENCH_SCALE_URL=${url}`);
    }
    let now = new Date();
    const clock = { now: () => now };
    await ensurePartitionsAhead(service.db, now);
    await pool.query('truncate webhook_endpoints cascade');
    const servers = await allJustStale(pool, now);
    for (const format of ['standard', 'slack'] as const)
      await addEndpoint(service.db, receivers[format].url, format, now);
    const bytesBefore = await eventPartitionBytes(pool);
    const load = (await import('node:os')).loadavg().map((l) => l.toFixed(1));
    console.log(
      `${servers} servers, all active, last seen 1 s past the stale threshold; load average ${load.join(' ')}`,
    );

    // The storm: the pass as main.ts starts it (every 30 s there; every second here, the clock standing still).
    statements.length = 0;
    const failures: string[] = [];
    let written = 0;
    const logger = {
      ...createLogger('silent'),
      warn: (msg: string, fields?: object) => failures.push(`${msg} ${JSON.stringify(fields)}`),
    };
    const pass = startNoticePass(
      { db: service.db, clock, logger, onWritten: (_type, count) => (written += count) },
      { thresholds },
      { everyMs: 1000 },
    );
    while (written < servers && failures.length < 10) await new Promise((r) => setTimeout(r, 200));
    await pass.stop();
    // From the pass's first statement to its last (not the wait for the first tick).
    const tookMs = Math.max(...statements.map((s) => s.at + s.ms)) - Math.min(...statements.map((s) => s.at));
    const passes = statements.filter((s) => s.text.includes('notice_watch')).length;
    const batches = statements.filter((s) => s.text.includes('notified_health'));
    const batchMs = batches.map((b) => b.ms).sort((a, b) => a - b);
    const at = (p: number) => batchMs[Math.min(batchMs.length - 1, Math.ceil(batchMs.length * p) - 1)]!.toFixed(0);
    const [counted] = (
      await pool.query<{ n: number }>(`select count(*)::int as n from events where type = 'server.went_stale'`)
    ).rows;
    const grown = (await eventPartitionBytes(pool)) - bytesBefore;
    console.log(`\nthe notice pass, ${servers} servers going stale at once:`);
    console.log(
      `| passes | server batches | statements | batch ms median / p99 / max | total s | events written (in the trail) | rows/s | event partitions grew | failed passes |`,
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    console.log(
      `| ${passes} | ${batches.length} | ${statements.length} | ${at(0.5)} / ${at(0.99)} / ${at(1)} | ${(tookMs / 1000).toFixed(1)} | ${written} (${counted!.n}) | ${Math.round(written / (tookMs / 1000))} | ${(grown / MiB).toFixed(0)} MiB (${(grown / Math.max(1, written)).toFixed(0)} B/event) | ${failures.length} |`,
    );
    for (const failure of failures.slice(0, 3)) console.log(`failed: ${failure}`);

    // The first minute after it: the delivery worker as main.ts runs it (a pass a second), the clock a second on each.
    const worker = createWebhookWorker({
      db: service.db,
      clock,
      logger: createLogger('silent'),
      safety: { allowHttp: true, allowPrivate: true },
      keyEncryptionKey: undefined,
      consolePublicUrl: new URL('https://console.example.net'),
    });
    const first = performance.now();
    for (let second = 0; second < 60; second++) {
      await worker.runOnce();
      now = new Date(now.getTime() + 1000);
    }
    const deliveries = (
      await pool.query<{ format: string; pending: number; delivered: number }>(
        `select e.format, count(*) filter (where d.status = 'pending')::int as pending, count(*) filter (where d.status = 'delivered')::int as delivered
         from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id group by 1 order by 1`,
      )
    ).rows;
    console.log(
      `\nthe first minute after the storm (60 worker passes, ${((performance.now() - first) / 1000).toFixed(1)} s of wall time):`,
    );
    console.log('| endpoint | messages received | deliveries delivered | deliveries pending |\n|---|---|---|---|');
    for (const format of ['standard', 'slack'] as const) {
      const row = deliveries.find((d) => d.format === format);
      console.log(`| ${format} | ${receivers[format].received()} | ${row?.delivered ?? 0} | ${row?.pending ?? 0} |`);
    }
  } finally {
    await receivers.standard.close();
    await receivers.slack.close();
    await service.close();
    pool.on('error', () => {});
    await pool.end();
    if (!process.env.BENCH_SCALE_KEEP) await scratch?.drop();
  }
}
