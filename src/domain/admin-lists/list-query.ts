import { and, eq, gte, ilike, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { activations } from '../../db/schema.js';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { afterCursor } from './pagination.js';
import { withinRange, type TimeRange } from './time-range.js';

/** `column = value` for each filter an operator gave; one left out (or empty) narrows nothing. */
export function matching(filters: ReadonlyArray<readonly [PgColumn, string | undefined]>): SQL[] {
  return filters.flatMap(([column, value]) => (value ? [eq(column, value)] : []));
}

/** The search of the lists of install codes, activations and servers (DESIGN §17); a filter left out narrows nothing. */
export interface SearchFilter {
  /** Part of a hostname or hint, or the start of an id, case-insensitive (which columns: each list says). */
  q?: string | undefined;
  /** A network in CIDR notation (an address is its /32 or /128), in its one spelling. */
  ip?: string | undefined;
  machineId?: string | undefined;
  sshFingerprint?: string | undefined;
  /** `tag=key:value` pairs: every one must be among the item's tags (copied from its fleet code). */
  tag?: TagPair[] | undefined;
}

/** `%` and `_` typed by an operator are letters, not wildcards. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** One of `columns` holds `text`, case-insensitive: found through their trigram index (pg_trgm), whatever the table's size. */
export function anyContaining(columns: PgColumn[], text: string | undefined): SQL | undefined {
  return text ? or(...columns.map((column) => ilike(column, containing(text)))) : undefined;
}

/** The hex digit after each one: the bound that ends the ids starting with a prefix, in any collation. */
const NEXT_HEX: Record<string, string> = Object.fromEntries(
  [...'0123456789abcdef'].map((digit, i) => [digit, '123456789abcdefg'[i]!]),
);

/**
 * The ids (`prefix` and hex, as `randomId` makes them) that start with `text`, case-insensitive, given
 * with or without their `prefix`: a range of the primary key. Any other text starts no id (undefined).
 * An id is found by its start, not by any part: a trigram index over random ids cost every insert
 * ~17 keys of its own in a large index (DESIGN §21, docs/measurements.md).
 */
function idStarting(id: PgColumn, prefix: string, text: string | undefined): SQL | undefined {
  const lower = text?.toLowerCase();
  const hex = lower?.startsWith(prefix) ? lower.slice(prefix.length) : lower;
  if (!hex || !/^[0-9a-f]+$/.test(hex)) return undefined;
  const end = `${hex.slice(0, -1)}${NEXT_HEX[hex.at(-1)!]}`;
  return and(gte(id, `${prefix}${hex}`), lt(id, `${prefix}${end}`));
}

/** The search `q` of a list: part of its text `column` (trigrams), or the start of the row's id (its primary key). */
export function textOrIdMatching(
  column: PgColumn,
  id: { column: PgColumn; prefix: string },
  text: string | undefined,
): SQL | undefined {
  return text ? or(anyContaining([column], text), idStarting(id.column, id.prefix, text)) : undefined;
}

/** The columns that say which machine a row is about. */
export interface MachineColumns {
  publicIp: PgColumn;
  machineId: PgColumn;
  sshFingerprint: PgColumn;
}

/**
 * The machine filters of `search` on `columns`. The address is compared as `inet` (each table has an
 * index on `(public_ip::inet)`), so a network is a range of that index and any spelling of an address
 * matches.
 */
export function machineMatching(columns: MachineColumns, search: SearchFilter): SQL[] {
  return [
    ...(search.ip ? [sql`(${columns.publicIp})::inet <<= ${search.ip}::inet`] : []),
    ...matching([
      [columns.machineId, search.machineId],
      [columns.sshFingerprint, search.sshFingerprint],
    ]),
  ];
}

/**
 * The rows whose `column` is the `key` of an activation of the machine `search` names (a semi-join on the
 * activations' indexes), or no condition. A code is found by the machine that used it, a server by its
 * activation's: a server's machine columns are its activation's, copied at register and never changed,
 * so the servers table keeps no index of them (each was a random key more for every register).
 */
export function ofMachine(db: Database, column: PgColumn, key: PgColumn, search: SearchFilter): SQL | undefined {
  const machine = machineMatching(activations, search);
  return machine.length
    ? inArray(
        column,
        db
          .select({ key })
          .from(activations)
          .where(and(...machine)),
      )
    : undefined;
}

/**
 * What a list ordered newest first by (`time`, `id`) selects: the rows after the cursor, within the
 * time range on `time`, that meet every one of `conditions` (an undefined one is no condition).
 */
export function newestFirst(
  time: PgColumn,
  id: PgColumn,
  filter: TimeRange & { cursor?: string | undefined },
  conditions: ReadonlyArray<SQL | undefined>,
): { where: SQL | undefined; orderBy: SQL[] } {
  const page = afterCursor(time, id, filter.cursor);
  return { where: and(page.where, ...conditions, ...withinRange(time, filter)), orderBy: page.orderBy };
}

/** One `tag=key:value` of a list's filter. */
export type TagPair = [key: string, value: string];

/** Items whose tags hold every pair (none given: no condition); two values for one key match nothing. */
export function tagged(column: PgColumn, pairs: TagPair[] | undefined): SQL | undefined {
  if (!pairs || pairs.length === 0) return undefined;
  return and(...pairs.map(([key, value]) => sql`${column} @> ${JSON.stringify({ [key]: value })}::jsonb`));
}
