// Databases for the benchmark whose drivers count every SQL statement they send (BEGIN, COMMIT and
// ROLLBACK included), so "statements per request" is measured, not inferred from the code.
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzleNodePostgres } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Database } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/client.js';
import { pgliteExtensions } from '../../src/db/pglite-extensions.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import * as schema from '../../src/db/schema.js';
import { nodePostgresTextTimestamps, useTextTimestamps } from '../../src/db/text-timestamps.js';
import { createScratchDatabase } from '../support/scratch-database.js';

export interface CountingDatabase {
  kind: 'pglite' | 'postgres';
  db: Database;
  /** Statements sent since the database was opened. */
  statements(): number;
  close(): Promise<void>;
}

export async function openCountingPglite(): Promise<CountingDatabase> {
  const client = await PGlite.create('memory://', { extensions: await pgliteExtensions() });
  useTextTimestamps(client);
  await migratePglite(drizzlePglite({ client, schema }), { migrationsFolder: 'drizzle' });
  let count = 0;
  /** The same object, but every query, exec and sql call is counted (as is a transaction's BEGIN and its end). */
  const counting = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, prop) {
        const value = Reflect.get(object, prop) as unknown;
        if (typeof value !== 'function') return value;
        if (prop === 'query' || prop === 'exec' || prop === 'sql') {
          return (...args: unknown[]) => {
            count += 1;
            return (value as (...a: unknown[]) => unknown).apply(object, args);
          };
        }
        if (prop === 'transaction') {
          // PGlite's transaction() sends BEGIN, the callback's statements, then COMMIT or ROLLBACK.
          return (callback: (tx: Transaction) => Promise<unknown>) =>
            client
              .transaction((tx) => {
                count += 1;
                return callback(counting(tx));
              })
              .finally(() => {
                count += 1;
              });
        }
        return (value as (...a: unknown[]) => unknown).bind(object);
      },
    });
  const countingClient = counting(client);
  const db = drizzlePglite({ client: countingClient, schema }) as unknown as Database;
  return { kind: 'pglite', db, statements: () => count, close: () => client.close() };
}

/** A fresh database next to `adminUrl`, migrated, dropped again on close. */
export async function openCountingPostgres(adminUrl: string): Promise<CountingDatabase> {
  const scratch = await createScratchDatabase(adminUrl, 'slowdns_bench');
  const migrating = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
  await migrateDatabase(migrating.db);
  await migrating.close();
  let count = 0;
  // Every statement, on the pool or on a transaction's connection, is one query() of a connection.
  class CountingConnection extends pg.Client {}
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  CountingConnection.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    count += 1;
    return query.apply(this, args);
  } as pg.Client['query'];
  const pool = new pg.Pool({
    connectionString: scratch.url,
    max: 10,
    types: nodePostgresTextTimestamps,
    Client: CountingConnection,
  });
  const db = drizzleNodePostgres({ client: pool, schema }) as unknown as Database;
  return {
    kind: 'postgres',
    db,
    statements: () => count,
    close: async () => {
      // A connection still closing when the drop terminates it reports the termination: expected here.
      pool.on('error', () => {});
      await pool.end();
      await scratch.drop();
    },
  };
}
