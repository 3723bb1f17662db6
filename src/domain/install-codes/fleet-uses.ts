import { and, count, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import { sqlPiece, type SqlPiece } from '../../db/composed-statement.js';
import type { Database } from '../../db/database.js';
import { activations } from '../../db/schema.js';
import type { InstallCodeRow } from './code-problem.js';

/**
 * The uses of a code with `uses` > 1 (DESIGN §22): spent (a counter, moved at confirm) and held (counted, never
 * stored: an unconfirmed, unreleased activation whose install token has not expired, so an abandoned install
 * gives its use back when its token expires, with nothing to run).
 */

/**
 * SQL: the held uses of the `install_codes` row the statement names `codes` (its table's name, or an alias),
 * at `:now`: an unconfirmed, unreleased activation whose install token has not expired.
 */
export function heldUses(codes: string): SqlPiece<'now'> {
  return sqlPiece(
    ['now'],
    `(select count(*) from activations h where h.install_code_id = ${codes}.id and h.status = 'activated' and h.install_token_expires_at > :now::timestamptz)`,
  );
}

/** The `install_codes` rows with a use free (every `uses: 1` code: its own states say whether it is free). */
export function usesLeftCondition(now: Date): SQL {
  return sql`(install_codes.uses = 1 or install_codes.uses_spent + (select count(*) from activations h
    where h.install_code_id = install_codes.id and h.status = 'activated' and h.install_token_expires_at > ${now.toISOString()}::timestamptz) < install_codes.uses)`;
}

/** The held uses of each of these codes that has `uses` > 1 (absent: none). */
export async function heldUsesOf(
  db: Database,
  codes: Pick<InstallCodeRow, 'id' | 'uses'>[],
  now: Date,
): Promise<Map<string, number>> {
  const ids = codes.filter((code) => code.uses > 1).map((code) => code.id);
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: activations.installCodeId, held: count() })
    .from(activations)
    .where(
      and(
        inArray(activations.installCodeId, ids),
        eq(activations.status, 'activated'),
        gt(activations.installTokenExpiresAt, now),
      ),
    )
    .groupBy(activations.installCodeId);
  return new Map(rows.map((row) => [row.id, Number(row.held)]));
}
