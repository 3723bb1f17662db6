// The embedded database's PostgreSQL settings, for every start (client.ts) and for initdb (client.ts on a fresh
// data folder without a seed, pglite-seed.ts for the seed).

/**
 * PostgreSQL's default shared_buffers is 128 MB, and PGlite touches all of it at start: with it the
 * process stands at 300–470 MB of RSS. 16 MB holds this service's tables many times over (a page not
 * in the buffers is a read from the data folder's files, in memory for `memory://`) and starts at about
 * half of that. Passed at each start, so it applies to existing folders too; PGlite's own start
 * parameters (single-user mode, no parallel workers) are kept.
 */
export const pgliteSettings = ['-c', 'shared_buffers=16MB'];

/**
 * initdb's settings, for a seed (pglite-seed.ts) and for a fresh data folder with none: WAL segments of 1 MB
 * instead of PostgreSQL's 16 MB. The seed's pg_wal is loaded whole (for `memory://` it stays in memory) and
 * held a 16 MB segment mostly of zeros; PostgreSQL's other settings do not change (initdb sizes
 * min/max_wal_size to the segment: 5 MB and 64 MB, written to postgresql.conf). The segment size is a
 * property of the data folder, read from pg_control.
 */
export const pgliteInitDbParams = ['--wal-segsize=1'];
