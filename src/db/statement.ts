import { DrizzleQueryError } from 'drizzle-orm/errors';
import type { Database } from './client.js';

/** What drizzle's session holds: the pool or PGlite, or a transaction's connection. Both answer `{ rows }`. */
interface DriverClient {
  query(text: string, params: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A statement's parameter: strings (timestamps as ISO text, JSON as text) or booleans, cast in the SQL. */
export type StatementParam = string | boolean | null;

/**
 * An SQL statement written with named parameters (`:code_hash`, `:now::timestamptz`), compiled once, at
 * module load, to the driver's `$1`, `$2`… (`text`): a parameter is found by its name, never by counting,
 * and a request pays only for putting its values in order (`values`).
 */
export interface NamedStatement<Params extends Record<string, StatementParam>> {
  /** The SQL the driver runs, with `$n` in place of each name (the same name, the same `$n`). */
  readonly text: string;
  /** The names in the order of their `$n`. */
  readonly names: readonly (keyof Params & string)[];
  /** The values of `params` in the order of `names`; a name left out is an error, not a silent null. */
  values(params: Params): StatementParam[];
}

// A quoted literal, a quoted identifier or a `--` comment is passed over; elsewhere `:name` (not `::type`) is a parameter.
const TOKENS = /'(?:[^']|'')*'|"[^"]*"|--[^\n]*|(?<![:\w]):([A-Za-z_]\w*)|\$\d+/g;

/**
 * Compiles `source` (SQL with `:name` parameters) to a `NamedStatement`. Call it at module load: a
 * statement that still holds a positional `$n` is refused there, so both kinds never mix.
 */
export function namedStatement<Params extends Record<string, StatementParam>>(source: string): NamedStatement<Params> {
  const names: string[] = [];
  const text = source.replace(TOKENS, (token: string, name: string | undefined) => {
    if (token.startsWith('$')) throw new Error(`A named statement holds a positional ${token}: name it.`);
    if (name === undefined) return token;
    const at = names.indexOf(name);
    return `$${at === -1 ? names.push(name) : at + 1}`;
  });
  return {
    text,
    names: names as (keyof Params & string)[],
    values(params) {
      return names.map((name) => {
        const value = params[name];
        if (value === undefined) throw new Error(`The statement's parameter :${name} has no value.`);
        return value;
      });
    },
  };
}

/**
 * Runs one statement whose text is fixed at module load, with its named parameters, on the database or
 * on a transaction, straight on the driver under drizzle (no query object is built per request). Unnamed:
 * node-postgres sends it as the protocol's unnamed statement, parsed, bound and executed in one round
 * trip, so it is safe behind a transaction-mode pooler. Parameters are read the same way by node-postgres
 * and PGlite; timestamps come back as PostgreSQL's text (text-timestamps.ts, set on both drivers; see
 * `timestampOf`).
 */
export async function runStatement<Row, Params extends Record<string, StatementParam> = Record<string, never>>(
  db: Database,
  statement: NamedStatement<Params>,
  params: Params,
): Promise<Row[]> {
  const values = statement.values(params);
  try {
    return (await driverClient(db).query(statement.text, values)).rows as Row[];
  } catch (error) {
    // As drizzle raises a failed query: the log shows its SQL (never its parameters) and the driver's error.
    throw new DrizzleQueryError(statement.text, values, error as Error);
  }
}

/**
 * The driver's client under drizzle: `session.client`, which drizzle does not export as API. Its node-postgres
 * and PGlite sessions (and their transactions) keep the pool, PGlite or the transaction's connection there;
 * test/foundation/run-statement.test.ts fails if a drizzle upgrade moves it.
 */
export function driverClient(db: Database): DriverClient {
  return (db as unknown as { session: { client: DriverClient } }).session.client;
}

/** A timestamptz column as the drivers answer it to drizzle's raw queries (`2026-11-22 10:15:00.123+00`). */
export function timestampOf(value: string): Date {
  return new Date(value);
}
