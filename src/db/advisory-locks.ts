/**
 * Every PostgreSQL advisory lock id of the service, in one place so that no two uses share an id:
 * a shared id makes unrelated work wait for each other (pruning would hold up an instance loading
 * its signing keys). The ids are arbitrary but fixed; instances of different versions must agree.
 */

/** Serialises migrations of instances that start together on one PostgreSQL. */
export const MIGRATION_LOCK = 0x51_0d_45_01;
/** Serialises creation of the first signing key by instances that start together. */
export const SIGNING_KEY_LOCK = 0x51_0d_45_02;
/** One instance prunes at a time (taken with pg_try_advisory_lock: the others skip the pass). */
export const PRUNE_LOCK = 0x51_0d_45_03;
