// The bare drivers: replay what the service sent for a request (wire-capture.ts), statement by
// statement and transaction by transaction, with no app, no ORM and no validation around it.
import type { PGlite, Transaction } from '@electric-sql/pglite';
import pg from 'pg';
import postgres from 'postgres';
import type { DatabaseHandle } from '../../src/db/database.js';
import type { CapturedStatement, ReplayUnit } from './wire-capture.js';

export interface BareClient {
  replay(units: ReplayUnit[]): Promise<void>;
  close(): Promise<void>;
}

class Rollback extends Error {}

/** What a driver does with what was captured: one statement alone, or statements in one transaction. */
interface BareDriver {
  statement(s: CapturedStatement): Promise<unknown>;
  /** Committed, or rolled back when the service rolled it back. */
  transaction(statements: CapturedStatement[], rollback: boolean): Promise<void>;
  close(): Promise<void>;
}

function bareClient(driver: BareDriver): BareClient {
  return {
    async replay(units) {
      for (const unit of units) {
        if (unit.transaction) await driver.transaction(unit.statements, unit.rollback);
        else await driver.statement(unit.statement);
      }
    },
    close: () => driver.close(),
  };
}

/**
 * postgres.js with the pool size of the service and the same choice of named or unnamed statements.
 * Unnamed, it asks for a statement's parameter types before it binds it: two round trips each.
 */
export function barePostgres(url: string, namedStatements: boolean): BareClient {
  const sql = postgres(url, { max: 10, prepare: namedStatements, onnotice: () => {} });
  // The captured parameters are the text the service put on the wire: send them as they are (postgres.js
  // would otherwise encode a string bound to a json parameter as a JSON string).
  for (const type of Object.keys(sql.options.serializers))
    sql.options.serializers[type as unknown as number] = (value: unknown) => value as string;
  const run = (client: postgres.Sql | postgres.TransactionSql, s: CapturedStatement) =>
    client.unsafe(s.text, (s.params ?? []) as postgres.ParameterOrJSON<never>[], { prepare: namedStatements });
  return bareClient({
    statement: (s) => run(sql, s),
    transaction: (statements, rollback) =>
      sql
        .begin(async (tx) => {
          for (const s of statements) await run(tx, s);
          if (rollback) throw new Rollback();
        })
        .then(
          () => undefined,
          (err: unknown) => {
            if (!(err instanceof Rollback)) throw err;
          },
        ),
    close: () => sql.end({ timeout: 5 }),
  });
}

/** node-postgres, the service's own driver, with its pool size: unnamed statements in one round trip each. */
export function bareNodePostgres(url: string): BareClient {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // pool.end() answers before the server has seen each connection close: dropping the database then
  // terminates them, an 'error' event that unheard would end the process.
  pool.on('error', () => {});
  const run = (client: pg.Pool | pg.PoolClient, s: CapturedStatement) =>
    client.query(s.params === undefined ? s.text : { text: s.text, values: s.params });
  return bareClient({
    statement: (s) => run(pool, s),
    async transaction(statements, rollback) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        for (const s of statements) await run(client, s);
        await client.query(rollback ? 'rollback' : 'commit');
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  });
}

/** The PGlite instance under a started database, called directly. */
export function barePglite(handle: DatabaseHandle): BareClient {
  const client = (handle.db as unknown as { $client: PGlite }).$client;
  const run = (on: PGlite | Transaction, s: CapturedStatement) =>
    s.params === undefined ? on.exec(s.text) : on.query(s.text, s.params);
  return bareClient({
    statement: (s) => run(client, s),
    transaction: (statements, rollback) =>
      client.transaction(async (tx) => {
        for (const s of statements) await run(tx, s);
        if (rollback) await tx.rollback();
      }),
    close: () => handle.close(),
  });
}
