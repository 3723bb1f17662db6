import { type SQL, type SQLChunk, sql } from 'drizzle-orm';
import type { Database } from './database.js';
import type { NamedStatement, StatementParam } from './named-statement.js';

// In a named statement's text, a quoted literal, a quoted identifier or a comment is passed over; elsewhere `$n` is a parameter.
const PLACEHOLDERS = /'(?:[^']|'')*'|"[^"]*"|--[^\n]*|\$(\d+)/g;

/**
 * A named statement's text cut once into the pieces drizzle's `sql` is made of: the text between parameters,
 * and for each `$n` the index of its value. A name's first `$n` becomes drizzle's parameter (drizzle numbers
 * them in the order they appear, as `namedStatement` did), a later one stays the same `$n`, so drizzle sends
 * the very text and values the statement compiled to.
 */
type Pieces = { texts: string[]; params: (number | undefined)[] };
const piecesOf = new WeakMap<NamedStatement<never>, Pieces>();

function pieces(text: string): Pieces {
  const texts: string[] = [];
  const params: (number | undefined)[] = [];
  let from = 0;
  let seen = 0;
  for (const match of text.matchAll(PLACEHOLDERS)) {
    if (match[1] === undefined) continue;
    const n = Number(match[1]);
    const first = n === seen + 1;
    if (first) seen = n;
    texts.push(text.slice(from, match.index) + (first ? '' : match[0]));
    params.push(first ? n - 1 : undefined);
    from = match.index + match[0].length;
  }
  texts.push(text.slice(from));
  return { texts, params };
}

function query(values: StatementParam[], cached: Pieces): SQL {
  const chunks: SQLChunk[] = [];
  for (let i = 0; i < cached.params.length; i++) {
    const at = cached.params[i];
    chunks.push(sql.raw(cached.texts[i]!));
    if (at !== undefined) chunks.push(sql.param(values[at]));
  }
  chunks.push(sql.raw(cached.texts[cached.params.length]!));
  return sql.join(chunks);
}

/**
 * Runs one statement whose text is fixed at module load, with its named parameters, on the database or on a
 * transaction, through drizzle's `execute`. Unnamed: node-postgres sends it as the protocol's unnamed
 * statement, parsed, bound and executed in one round trip, so it is safe behind a transaction-mode pooler.
 * Timestamps come back as PostgreSQL's text, as drizzle reads them (see `timestampOf`); a failure is drizzle's
 * DrizzleQueryError (the log shows its SQL, never its parameters).
 */
export async function runStatement<Row, Params extends Record<string, StatementParam> = Record<string, never>>(
  db: Database,
  statement: NamedStatement<Params, (row: Row) => void>,
  params: Params,
): Promise<Row[]> {
  const key = statement as unknown as NamedStatement<never>;
  let cached = piecesOf.get(key);
  if (!cached) piecesOf.set(key, (cached = pieces(statement.text)));
  const result = (await db.execute(query(statement.values(params), cached))) as { rows: unknown[] };
  return result.rows as Row[];
}

/** A timestamptz column as the drivers answer it to drizzle's raw queries (`2026-11-22 10:15:00.123+00`). */
export function timestampOf(value: string): Date {
  return new Date(value);
}
