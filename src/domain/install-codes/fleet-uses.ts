import { sql, type SQL } from 'drizzle-orm';
import { composedStatement, sqlPiece, type SqlPiece } from '../../db/composed-statement.js';
import type { Database } from '../../db/database.js';
import { runStatement } from '../../db/statement.js';
import type { InstallCodeRow } from './code-problem.js';

/**
 * The uses of a code with `uses` > 1 (DESIGN §22): spent (a counter, moved at confirm) and held (counted, never
 * stored: an unconfirmed, unreleased activation whose install token has not expired, so an abandoned install
 * gives its use back when its token expires, with nothing to run).
 */

/**
 * SQL: the held uses of the `install_codes` row the statement names `codes` (its table's name, or an alias),
 * at `:now`: an unconfirmed, unreleased activation whose install token has not expired or whose server is active. The one place the rule
 * is written: the list's condition and `heldUsesOf` are made from it.
 */
export function heldUses(codes: string): SqlPiece<'now'> {
  return sqlPiece(
    ['now'],
    `(select count(*) from activations h where h.install_code_id = ${codes}.id and h.status = 'activated'
      and (h.install_token_expires_at > :now::timestamptz or exists (select 1 from servers s where s.activation_id = h.id and s.status = 'active')))`,
  );
}

/** The `install_codes` rows with a use free (every `uses: 1` code: its own states say whether it is free). */
export function usesLeftCondition(now: Date): SQL {
  // The rule's `:now`, bound as this query's parameter.
  const [before, after] = heldUses('install_codes').text.split(':now') as [string, string];
  return sql`(install_codes.uses = 1 or install_codes.uses_spent + ${sql.raw(before)}${now.toISOString()}${sql.raw(after)} < install_codes.uses)`;
}

type HeldParams = { ids: string; now: string };

const HELD = composedStatement<HeldParams>()`select id, ${heldUses('install_codes')} as held from install_codes where id in (select json_array_elements_text(:ids::json))`;

/** The held uses of each of these codes that has `uses` > 1 (absent: none). */
export async function heldUsesOf(
  db: Database,
  codes: Pick<InstallCodeRow, 'id' | 'uses'>[],
  now: Date,
): Promise<Map<string, number>> {
  const ids = codes.filter((code) => code.uses > 1).map((code) => code.id);
  if (ids.length === 0) return new Map();
  const rows = await runStatement<{ id: string; held: string | number }, HeldParams>(db, HELD, {
    ids: JSON.stringify(ids),
    now: now.toISOString(),
  });
  return new Map(rows.map((row) => [row.id, Number(row.held)]));
}
