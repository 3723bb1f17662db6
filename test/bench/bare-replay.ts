// The bare driver: replays what the service sent for a request (wire-capture.ts), statement by
// statement and transaction by transaction, with no app, no ORM and no validation around it.
import type { PGlite, Transaction } from '@electric-sql/pglite';
import postgres from 'postgres';
import type { DatabaseHandle } from '../../src/db/client.js';
import type { CapturedStatement, ReplayUnit } from './wire-capture.js';

export interface BareClient {
  replay(units: ReplayUnit[]): Promise<void>;
  close(): Promise<void>;
}

class Rollback extends Error {}

/** postgres.js with the pool size of the service and the same choice of named or unnamed statements. */
export function barePostgres(url: string, namedStatements: boolean): BareClient {
  const sql = postgres(url, { max: 10, prepare: namedStatements, onnotice: () => {} });
  // The captured parameters are the text the service put on the wire: send them as they are (postgres.js
  // would otherwise encode a string bound to a json parameter as a JSON string).
  for (const type of Object.keys(sql.options.serializers)) sql.options.serializers[type as unknown as number] = (value: unknown) => value as string;
  const run = (client: postgres.Sql | postgres.TransactionSql, s: CapturedStatement) =>
    client.unsafe(s.text, (s.params ?? []) as postgres.ParameterOrJSON<never>[], { prepare: namedStatements });
  return {
    async replay(units) {
      for (const unit of units) {
        if (!unit.transaction) {
          await run(sql, unit.statement);
          continue;
        }
        await sql
          .begin(async (tx) => {
            for (const s of unit.statements) await run(tx, s);
            if (unit.rollback) throw new Rollback();
          })
          .catch((err: unknown) => {
            if (!(err instanceof Rollback)) throw err;
          });
      }
    },
    close: () => sql.end({ timeout: 5 }),
  };
}

/** The PGlite instance under a started database, called directly. */
export function barePglite(handle: DatabaseHandle): BareClient {
  const client = (handle.db as unknown as { $client: PGlite }).$client;
  const run = (on: PGlite | Transaction, s: CapturedStatement) => (s.params === undefined ? on.exec(s.text) : on.query(s.text, s.params));
  return {
    async replay(units) {
      for (const unit of units) {
        if (!unit.transaction) {
          await run(client, unit.statement);
          continue;
        }
        await client.transaction(async (tx) => {
          for (const s of unit.statements) await run(tx, s);
          if (unit.rollback) await tx.rollback();
        });
      }
    },
    close: () => handle.close(),
  };
}
