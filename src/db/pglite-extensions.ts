import type { Extension } from '@electric-sql/pglite';

/**
 * The PostgreSQL extensions the migrations create, as PGlite loads them from its own contrib: every
 * embedded database is opened with them (a table's index may need one, e.g. the search's pg_trgm).
 * Loaded here, not at the top of a module, as PGlite itself is: never on PostgreSQL.
 */
export async function pgliteExtensions(): Promise<Record<string, Extension>> {
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  return { pg_trgm };
}
