import { desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/database.js';
import { activations } from '../../db/schema.js';
import type { ActivationRow } from '../activations/activation-rows.js';
import type { InstallCodeRow } from './code-problem.js';
import { SHOWN_CODE_ACTIVATIONS_LIMIT } from './fleet-rules.js';

/**
 * The activations a code made, newest first (at most SHOWN_CODE_ACTIVATIONS_LIMIT): what the show of a code adds
 * to its list record beside its prechecks (DESIGN §22; a page code has at most one at a time).
 */
export async function codeActivations(db: Database, code: Pick<InstallCodeRow, 'id'>): Promise<ActivationRow[]> {
  return db
    .select()
    .from(activations)
    .where(eq(activations.installCodeId, code.id))
    .orderBy(desc(activations.createdAt), desc(activations.id))
    .limit(SHOWN_CODE_ACTIVATIONS_LIMIT);
}
