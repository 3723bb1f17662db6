// `npm run bench`: benchmarks print numbers; nothing here is a test. Runs on embedded PGlite and on
// PostgreSQL (DATABASE_URL, or postgres://postgres@127.0.0.1:5432/postgres; a scratch database is
// created and dropped). BENCH_RUNS sets N (1000 by default).
import { openCountingPglite, openCountingPostgres, type CountingDatabase } from './counting-database.js';
import { benchRateLimiter, type Measurement } from './rate-limiter.js';

const runs = Number(process.env.BENCH_RUNS ?? 1000);
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function print(kind: string, rows: Measurement[]): void {
  console.log(`\nrate limiter on ${kind} (N=${runs} per case, after 100 warm-up runs)`);
  console.log('| case | SQL statements / request | median µs | p95 µs | mean µs |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.case} | ${r.statementsPerRun} | ${r.medianUs} | ${r.p95Us} | ${r.meanUs} |`);
}

async function bench(kind: string, open: () => Promise<CountingDatabase>): Promise<void> {
  let database: CountingDatabase;
  try {
    database = await open();
  } catch (err) {
    console.log(`\n${kind}: skipped (${err instanceof Error ? err.message : String(err)})`);
    return;
  }
  try {
    print(kind, await benchRateLimiter(database, runs));
  } finally {
    await database.close();
  }
}

console.log(`node ${process.version}, ${new Date().toISOString()}`);
await bench('PGlite (in memory)', openCountingPglite);
await bench(`PostgreSQL (${new URL(adminUrl).host})`, () => openCountingPostgres(adminUrl));
