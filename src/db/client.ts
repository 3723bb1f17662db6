import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema.js';

/** A drizzle database or transaction; queries take it as their first argument. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** Runs `fn` on one connection while holding a session-level advisory lock (PGlite has one connection anyway). */
  withAdvisoryLock<T>(key: number, fn: (db: Database) => Promise<T>): Promise<T>;
  /** Like withAdvisoryLock, but answers undefined at once when another session holds the lock. */
  tryWithAdvisoryLock<T>(key: number, fn: (db: Database) => Promise<T>): Promise<T | undefined>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string | undefined;
  /** Folder of the embedded database; `memory://` keeps it in memory. */
  dataDir: string;
}

/** `DATABASE_URL` set → postgres.js on a real PostgreSQL; unset → embedded PGlite. Same schema, same SQL. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.databaseUrl ? openPostgres(options.databaseUrl) : openPglite(options.dataDir);
}

async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  if (!dataDir.startsWith('memory://')) await mkdir(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir);
  const db = drizzlePglite({ client, schema }) as unknown as Database;
  // One process owns an embedded database, so an in-process queue per key is the advisory lock.
  const queues = new Map<number, Promise<unknown>>();
  return {
    db,
    kind: 'pglite',
    withAdvisoryLock(key, fn) {
      const run = (queues.get(key) ?? Promise.resolve()).catch(() => {}).then(() => fn(db));
      queues.set(key, run);
      return run;
    },
    // One process owns a PGlite folder: there is no other instance to exclude.
    tryWithAdvisoryLock: (_key, fn) => fn(db),
    close: () => client.close(),
  };
}

function openPostgres(url: string): DatabaseHandle {
  const client = postgres(url, { max: 10, connect_timeout: 5, idle_timeout: 60, onnotice: () => {} });
  const db = drizzlePostgres({ client, schema }) as unknown as Database;
  return {
    db,
    kind: 'postgres',
    async withAdvisoryLock(key, fn) {
      // A one-connection client: a session-level advisory lock belongs to the connection that took it.
      const single = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
      try {
        await single`select pg_advisory_lock(${key})`;
        return await fn(drizzlePostgres({ client: single, schema }) as unknown as Database);
      } finally {
        await single.end({ timeout: 5 });
      }
    },
    async tryWithAdvisoryLock(key, fn) {
      const single = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
      try {
        const [row] = await single<{ locked: boolean }[]>`select pg_try_advisory_lock(${key}) as locked`;
        if (!row?.locked) return undefined;
        return await fn(drizzlePostgres({ client: single, schema }) as unknown as Database);
      } finally {
        await single.end({ timeout: 5 });
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/** Codes that only a database driver gives: the server is down, restarting or full. */
const databaseCodes = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', '57P01', '57P02', '57P03', '53300']);
/** Socket codes: the database's only when the socket was the database's (a client hanging up gives ECONNRESET too). */
const socketCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

type ErrorLike = { code?: unknown; cause?: unknown; message?: unknown; address?: unknown; name?: unknown } | undefined;

/** True when an error (or its cause) says the database cannot be reached, as opposed to a bug or a client gone. */
export function isDatabaseUnavailable(error: unknown): boolean {
  let fromDatabase = false;
  for (let e = error as ErrorLike, depth = 0; e && depth < 5; e = e.cause as ErrorLike, depth++) {
    if (e.name === 'DrizzleQueryError' || e.name === 'PostgresError') fromDatabase = true;
    if (typeof e.code === 'string') {
      if (databaseCodes.has(e.code) || e.code.startsWith('08')) return true;
      if (socketCodes.has(e.code) && (fromDatabase || e.address !== undefined)) return true;
    }
    if (typeof e.message === 'string' && /PGlite is closed/i.test(e.message)) return true;
  }
  return false;
}
