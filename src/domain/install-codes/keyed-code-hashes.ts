import type { Database } from '../../db/database.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement } from '../../db/statement.js';
import { KEYED_CODE_HASH_PREFIX, type KeyedHashes } from '../tokens/keyed-hashes.js';

type UnkeyedParams = { prefix: string; after: string };
type KeyParams = { rows: string };

const UNKEYED = namedStatement<UnkeyedParams>(
  `select id, code_hash from install_codes where id > :after and code_hash not like :prefix || '%' order by id limit 1000`,
);
const KEY = namedStatement<KeyParams>(`update install_codes c set code_hash = k.code_hash
from json_to_recordset(:rows::json) as k(id text, code_hash text) where c.id = k.id`);

/**
 * A thousand codes a statement (a fleet of a million codes is keyed in a thousand statements, once), each
 * statement going on from the last id of the one before: read from the first id each time, the statements
 * walked past every code keyed before them (a million codes took over an hour at start; docs/measurements.md).
 * At start with a KEK (DESIGN §23): every install code kept under its plain SHA-256 (issued before the KEK was
 * set) is kept under its keyed hash instead, computed from that SHA-256, so every such code keeps working. A
 * precheck token made before it names the old hash: its installer prechecks again. Answers how many were keyed.
 */
export async function keyInstallCodeHashes(db: Database, hashes: KeyedHashes): Promise<number> {
  if (!hashes.keyed) return 0;
  let keyed = 0;
  let after = '';
  for (;;) {
    const rows = await runStatement<{ id: string; code_hash: string }, UnkeyedParams>(db, UNKEYED, {
      prefix: KEYED_CODE_HASH_PREFIX,
      after,
    });
    if (rows.length === 0) return keyed;
    after = rows.at(-1)!.id;
    const rekeyed = rows.map((row) => ({ id: row.id, code_hash: hashes.installCodeFromUnkeyed(row.code_hash) }));
    await runStatement<never, KeyParams>(db, KEY, { rows: JSON.stringify(rekeyed) });
    keyed += rows.length;
  }
}
