import type { Database } from '../../db/database.js';
import { namedStatement } from '../../db/named-statement.js';
import { runStatement } from '../../db/statement.js';
import { KEYED_CODE_HASH_PREFIX, type KeyedHashes } from '../tokens/keyed-hashes.js';

type CodesParams = { after: string };
type KeyParams = { rows: string };

/** Codes read a statement: a range of the primary key, whatever their hashes (see keyInstallCodeHashes). */
const CODES_A_STATEMENT = 5000;
const CODES = namedStatement<CodesParams>(
  `select id, code_hash from install_codes where id > :after order by id limit ${CODES_A_STATEMENT}`,
);
const KEY = namedStatement<KeyParams>(`update install_codes c set code_hash = k.code_hash
from json_to_recordset(:rows::json) as k(id text, code_hash text) where c.id = k.id`);

/**
 * At start with a KEK (DESIGN §23): every install code kept under its plain SHA-256 (issued before the KEK was
 * set) is kept under its keyed hash instead, computed from that SHA-256, so every such code keeps working. A
 * precheck token made before it names the old hash: its installer prechecks again. Answers how many were keyed.
 * The codes are read in ranges of the primary key (CODES_A_STATEMENT each) and those not yet keyed are keyed:
 * a statement that looked for the unkeyed ones (`code_hash not like 'k1:%' … limit 1000`) walked past every code
 * keyed before it, and once none was left read the whole table in one statement: at a million codes it ran
 * past the 5 s statement timeout, and the start retried it for ever (docs/measurements.md, "Fleet-size reads").
 */
export async function keyInstallCodeHashes(db: Database, hashes: KeyedHashes): Promise<number> {
  if (!hashes.keyed) return 0;
  let keyed = 0;
  let after = '';
  for (;;) {
    const rows = await runStatement<{ id: string; code_hash: string }, CodesParams>(db, CODES, { after });
    const unkeyed = rows.filter((row) => !row.code_hash.startsWith(KEYED_CODE_HASH_PREFIX));
    if (unkeyed.length > 0) {
      const rekeyed = unkeyed.map((row) => ({ id: row.id, code_hash: hashes.installCodeFromUnkeyed(row.code_hash) }));
      await runStatement<never, KeyParams>(db, KEY, { rows: JSON.stringify(rekeyed) });
      keyed += unkeyed.length;
    }
    if (rows.length < CODES_A_STATEMENT) return keyed;
    after = rows.at(-1)!.id;
  }
}
