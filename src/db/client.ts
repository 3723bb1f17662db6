import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { watchAvailability, type AvailabilityOptions } from './availability.js';
import type { Database, DatabaseHandle } from './database.js';
import { keepsMadeSeed } from './migrations-folder.js';
import { openPostgres, type PostgresOptions } from './postgres-pool.js';
import { pgliteInitDbParams, pgliteSettings } from './pglite-settings.js';
import * as schema from './schema.js';
import { traceQueries, type StatementTracer } from './statement-tracing.js';
import { useTextTimestamps } from './text-timestamps.js';

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  /** Folder of the embedded database; `memory://` keeps it in memory. */
  dataDir: string;
  /** What a fresh embedded database starts from (pglite-seed.ts); by default the build's seed, when there is one. */
  pgliteSeed?: Blob | undefined;
  /** Told when the database goes away and when it is back (for one log line each). */
  onAvailabilityChange?: AvailabilityOptions['onChange'];
  /** How often the embedded database checkpoints (PGLITE_CHECKPOINT_INTERVAL_MS by default). */
  pgliteCheckpointIntervalMs?: number | undefined;
  /** While tracing is on: each statement of a traced request in a span of its own (Tracing.statement). */
  traceStatement?: StatementTracer | undefined;
  /** Told when the host that accepts writes changes (DATABASE_URL with several hosts). */
  onPrimaryChange?: PostgresOptions['onPrimaryChange'];
}

/** `DATABASE_URL` set → node-postgres on a real PostgreSQL; unset → embedded PGlite. Same schema, same SQL. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const watch = { onChange: options.onAvailabilityChange };
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, {
        watch,
        traceStatement: options.traceStatement,
        onPrimaryChange: options.onPrimaryChange,
      })
    : openPglite(
        options.dataDir,
        options.pgliteSeed,
        watch,
        options.pgliteCheckpointIntervalMs,
        options.traceStatement,
      );
}

/**
 * PGlite is PostgreSQL compiled to WebAssembly (9 MB). V8 compiles it with its baseline compiler,
 * Liftoff, then recompiles the functions that run hot with TurboFan on background threads. During a
 * start that recompiling left about 80 MB of freed compiler memory in those threads' malloc arenas,
 * never returned to the system (`/proc/PID/smaps` on Node 20: 87 MB of 64 MB-aligned arenas, 8 MB
 * with Liftoff only; on Node 24 the process peaked at 770 MB instead of 240 MB), and took about a
 * second of CPU on this 2-core machine. Liftoff's code costs some CPU per query instead
 * (docs/measurements.md). Two process-wide V8 flags, read when WebAssembly is compiled (nothing else in this
 * process compiles any): `--liftoff-only`, which Node 24 ignores when set at run time, and a
 * tiering budget too large to be spent, which all of Node 20, 22 and 24 honour.
 */
function compileWebAssemblyWithLiftoffOnly(): void {
  setFlagsFromString('--liftoff-only');
  setFlagsFromString(`--wasm-tiering-budget=${2 ** 31 - 1}`);
}

/**
 * PGlite runs PostgreSQL in single-user mode, where no checkpointer runs and max_wal_size asks for
 * no checkpoint: PostgreSQL checkpointed only when it stopped, so pg_wal kept every write since the
 * start (in memory for `memory://`: 240 MB of rows written left 142 MB in pg_wal, 25 MB with a
 * checkpoint every second). A checkpoint as often as PostgreSQL's checkpoint_timeout lets it remove
 * or recycle the WAL before it, and bounds what a restart after a crash replays. It waits for any
 * transaction in progress (PGlite serialises its queries), then writes the changed buffers (at most
 * shared_buffers, 16 MB). Single-user mode runs no autovacuum either, and every counted request updates
 * a rate-limit row: a plain VACUUM (no lock that stops reads or writes) before each checkpoint lets
 * later rows reuse the room of dead ones instead of growing the tables for ever.
 */
const PGLITE_CHECKPOINT_INTERVAL_MS = 5 * 60_000;

async function openPglite(
  dataDir: string,
  seed: Blob | undefined,
  watch: AvailabilityOptions,
  checkpointIntervalMs = PGLITE_CHECKPOINT_INTERVAL_MS,
  traceStatement?: StatementTracer,
): Promise<DatabaseHandle> {
  // Loaded here, not at the top: on PostgreSQL the server never loads PGlite (80 ms of CPU, 16 MB).
  const inMemory = dataDir.startsWith('memory://');
  const fresh = inMemory || !existsSync(join(dataDir, 'PG_VERSION'));
  // A fresh database's seed is read and unpacked (off the main thread) while PGlite loads: written into a
  // fresh DATA_DIR by node (unpack-pglite-seed.ts), or handed to PGlite for `memory://`.
  const unpacked =
    fresh && !seed && !inMemory
      ? Promise.all([import('./pglite-seed.js'), import('./unpack-pglite-seed.js')]).then(([m, u]) =>
          u.unpackPgliteSeed(m.pgliteSeedFile(), dataDir),
        )
      : undefined;
  unpacked?.catch(() => {});
  const seedRead = fresh && !seed && inMemory ? import('./pglite-seed.js').then((m) => m.readPgliteSeed()) : undefined;
  // Its failure is thrown where it is awaited, below, not reported as unhandled while PGlite loads.
  seedRead?.catch(() => {});
  const [{ PGlite }, { drizzle: drizzlePglite }, extensions] = await Promise.all([
    import('@electric-sql/pglite'),
    import('drizzle-orm/pglite'),
    import('./pglite-extensions.js').then((m) => m.pgliteExtensions()),
  ]);
  compileWebAssemblyWithLiftoffOnly();
  if (!inMemory) await mkdir(dataDir, { recursive: true });
  let loadDataDir = fresh && !(await unpacked) ? (seed ?? (await seedRead)) : undefined;
  // Fresh, and no seed anywhere: the compiled server makes one now and keeps it (pglite-seed.ts); from src/,
  // PGlite runs initdb and the caller migrates.
  if (fresh && !(await unpacked) && !loadDataDir && keepsMadeSeed) {
    const seeds = await import('./pglite-seed.js');
    const made = await seeds.makeAndKeepPgliteSeed();
    if (inMemory) loadDataDir = seeds.seedBlob(made);
    else await import('./unpack-pglite-seed.js').then((u) => u.writePgliteSeed(made, dataDir));
  }
  const startParams = [...PGlite.defaultStartParams, ...pgliteSettings];
  const client = await PGlite.create(dataDir, {
    startParams,
    initDbStartParams: pgliteInitDbParams,
    extensions,
    ...(loadDataDir ? { loadDataDir } : {}),
  });
  useTextTimestamps(client);
  if (traceStatement) {
    // Its own queries and each transaction's (PGlite runs a transaction's BEGIN and COMMIT itself, unseen).
    traceQueries(client, traceStatement);
    const transaction = client.transaction.bind(client);
    client.transaction = (run) => transaction((tx) => run(traceQueries(tx, traceStatement)));
  }
  const db = drizzlePglite({ client, schema }) as unknown as Database;
  // One connection, always open, in the process itself.
  const poolStats = async () => ({ max: 1, connections: { active: 1 } });
  // In-process: it cannot stall on a network, only be closed, and then a query fails at once.
  const availability = watchAvailability(async () => void (await client.query('select 1')), watch);
  // Vacuum first (single-user mode runs no autovacuum), then checkpoint. A failure is retried at the
  // next tick; a closed database stops the timer first.
  const maintain = async () => {
    await client.exec('vacuum');
    await client.exec('checkpoint');
  };
  const checkpoints = setInterval(() => void maintain().catch(() => {}), checkpointIntervalMs).unref();
  const close = async () => {
    clearInterval(checkpoints);
    availability.close();
    await client.close();
  };
  return { db, kind: 'pglite', poolStats, availability, close };
}
