// `BENCH_ONLY=search npm run bench`: the admin lists' search at BENCH_ROWS rows (default 1,000,000 install
// codes, each with an activation and a server) on PostgreSQL. Each filter runs through the domain's own
// list function; the statement it sent is then run again under EXPLAIN (ANALYZE, BUFFERS), and its plan
// printed (and so is the fleet gauges' one statement). Nothing is asserted: the plans show which index each filter uses, and the times what it costs.
import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import type { Database } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/client.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import * as schema from '../../src/db/schema.js';
import { nodePostgresTextTimestamps } from '../../src/db/text-timestamps.js';
import { listActivations } from '../../src/domain/admin-lists/activation-list.js';
import { stateCounts } from '../../src/domain/admin-lists/state-counts.js';
import { listInstallCodes } from '../../src/domain/admin-lists/install-code-list.js';
import { listServers } from '../../src/domain/admin-lists/server-list.js';
import { fillFleet } from '../support/fleet-rows.js';
import { createScratchDatabase } from '../support/scratch-database.js';

/** A database whose connections keep the statements they send, so that one can be explained afterwards. */
export async function openExplainingPostgres(url: string) {
  const sent: { text: string; values: unknown[] }[] = [];
  class RecordingConnection extends pg.Client {}
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  RecordingConnection.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [first, second] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
    sent.push({
      text: typeof first === 'string' ? first : first.text,
      values: (typeof first === 'string' ? undefined : first.values) ?? (Array.isArray(second) ? second : []),
    });
    return query.apply(this, args);
  } as pg.Client['query'];
  const pool = new pg.Pool({
    connectionString: url,
    max: 2,
    types: nodePostgresTextTimestamps,
    Client: RecordingConnection,
  });
  const db = drizzle({ client: pool, schema }) as unknown as Database;
  /** Runs `run`, then EXPLAIN (ANALYZE, BUFFERS) of each statement it sent: the plan's lines. */
  const explain = async (run: () => Promise<unknown>): Promise<string[][]> => {
    sent.length = 0;
    await run();
    const statements = sent.splice(0);
    const plans: string[][] = [];
    for (const { text, values } of statements) {
      const result = await pool.query(`explain (analyze, buffers) ${text}`, values);
      plans.push(result.rows.map((row: Record<string, string>) => row['QUERY PLAN']!));
    }
    return plans;
  };
  return { db, pool, explain };
}

/** Each node of a plan, as `node (rows)`, from the top. */
const summary = (plan: string[]) =>
  plan
    .map((line) => /^\s*(?:->\s*)?([A-Z][^(]*?)\s*\(cost=[^)]*\)\s*\(actual time=[^ ]* rows=([\d.]+)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => `${m[1]} (${Number(m[2])})`);
const executionMs = (plan: string[]) =>
  plan.find((line) => line.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '?';

export async function benchAdminSearch(adminUrl: string, rows: number): Promise<void> {
  const scratch = await createScratchDatabase(adminUrl, 'slowdns_bench');
  const migrating = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
  await migrateDatabase(migrating.db);
  await migrating.close();
  const { db, pool, explain } = await openExplainingPostgres(scratch.url);
  try {
    const now = new Date();
    const started = performance.now();
    await fillFleet(db, rows, now);
    console.log(
      `filled ${rows} install codes, activations and servers in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
    const i = Math.floor(rows / 3) + 7;
    const one = (
      await pool.query(
        `select a.id, a.machine_id, a.ssh_fingerprint, a.public_ip, s.id as server_id, c.hint from activations a join servers s on s.activation_id = a.id join install_codes c on c.id = a.install_code_id where a.hostname like $1`,
        [`host-${i}.%`],
      )
    ).rows[0];
    const thresholds = { deadAfterSeconds: 86_400 };
    const page = { limit: 50 };
    const network = `10.${(i >> 16) % 256}.${(i >> 8) % 256}.0/24`;
    const cases: [string, () => Promise<unknown>][] = [
      [`activations q=host-${i} (part of a hostname)`, () => listActivations(db, { ...page, q: `host-${i}` })],
      [
        `activations q=${one.id.slice(4, 12)} (the start of an id)`,
        () => listActivations(db, { ...page, q: one.id.slice(4, 12) }),
      ],
      ['activations q=zzzzz (matches nothing)', () => listActivations(db, { ...page, q: 'zzzzz' })],
      ['activations q=example.net (half the rows)', () => listActivations(db, { ...page, q: 'example.net' })],
      [
        `activations ip=${one.public_ip} (an address)`,
        () => listActivations(db, { ...page, ip: `${one.public_ip}/${one.public_ip.includes(':') ? 128 : 32}` }),
      ],
      [`activations ip=${network} (256 addresses)`, () => listActivations(db, { ...page, ip: network })],
      [
        'activations ip=2001:db8::/32 (a tenth of the rows)',
        () => listActivations(db, { ...page, ip: '2001:db8::/32' }),
      ],
      ['activations machine_id', () => listActivations(db, { ...page, machineId: one.machine_id })],
      ['activations ssh_fingerprint', () => listActivations(db, { ...page, sshFingerprint: one.ssh_fingerprint })],
      [`servers q=host-${i}`, () => listServers(db, { ...page, q: `host-${i}` }, now, thresholds)],
      [
        `servers q=${one.server_id.slice(4, 12)} (the start of an id)`,
        () => listServers(db, { ...page, q: one.server_id.slice(4, 12) }, now, thresholds),
      ],
      [`servers ip=${network}`, () => listServers(db, { ...page, ip: network }, now, thresholds)],
      ['servers machine_id', () => listServers(db, { ...page, machineId: one.machine_id }, now, thresholds)],
      [
        'servers ssh_fingerprint',
        () => listServers(db, { ...page, sshFingerprint: one.ssh_fingerprint }, now, thresholds),
      ],
      [
        `install codes q=${one.hint.slice(-6)} (part of a hint)`,
        () => listInstallCodes(db, { ...page, q: one.hint.slice(-6) }, now),
      ],
      [
        `install codes machine_id (through activations)`,
        () => listInstallCodes(db, { ...page, machineId: one.machine_id }, now),
      ],
      [`install codes ip=${network} (through activations)`, () => listInstallCodes(db, { ...page, ip: network }, now)],
      ['fleet gauges (stateCounts: one statement)', () => stateCounts(db, now, thresholds)],
    ];
    console.log(
      `\nadmin search on PostgreSQL, ${rows} rows per table: EXPLAIN (ANALYZE, BUFFERS) of the list's statement (ms)`,
    );
    const full: string[] = [];
    for (const [name, run] of cases) {
      await run(); // warm
      const [plan] = await explain(run);
      console.log(`| ${name} | ${executionMs(plan!)} | ${summary(plan!).join(' → ')} |`);
      full.push(`-- ${name}`, ...plan!);
    }
    if (process.env.BENCH_PLANS) console.log(`\n${full.join('\n')}`);
  } finally {
    pool.on('error', () => {});
    await pool.end();
    await scratch.drop();
  }
}
