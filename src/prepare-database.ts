import type { Clock } from './clock.js';
import type { DatabaseHandle } from './db/database.js';
import { isDatabaseUnavailable } from './db/database-errors.js';
import { describeDatabaseUrl, parseDatabaseUrl } from './db/database-url.js';
import { permanentDatabaseProblem } from './db/permanent-database-errors.js';
import { ConfigError } from './config-error.js';
import { migrateDatabase } from './db/migrate.js';
import { ensurePartitionsAhead } from './db/time-partitions.js';
import { loadKeyRing, type KeyStoreOptions } from './domain/tokens/signing-key-store.js';
import { sealWebhookSecretsInClear } from './domain/webhooks/sealed-fields.js';
import { keyInstallCodeHashes } from './domain/install-codes/keyed-code-hashes.js';
import { keyedHashes } from './domain/tokens/keyed-hashes.js';
import type { KeyRing } from './domain/tokens/signing-keys.js';
import { errorFields, type Logger } from './logger.js';

/** Waits between attempts: 250 ms, doubling, never more than 2 s, so a returning database is used within ~2 s. */
const retryDelayMs = (attempt: number) => Math.min(250 * 2 ** (attempt - 1), 2000);

/** Where the database is, for logs: host, port and name, never the user or password of the URL. */
export function describeDatabase(databaseUrl: string | undefined, dataDir: string): string {
  if (!databaseUrl) return `pglite:${dataDir}`;
  try {
    return describeDatabaseUrl(parseDatabaseUrl(databaseUrl));
  } catch {
    return 'postgres';
  }
}

export interface PrepareDatabaseOptions {
  /** The ring from SIGNING_KEYS, checked before the database was opened; unset: the database's keys. */
  keys: KeyRing | undefined;
  /** How the database's keys are kept (KEY_ENCRYPTION_KEY, …): keyStoreOptions(config). */
  keyStore?: KeyStoreOptions;
  clock: Clock;
  logger: Logger;
  /** For the log lines: describeDatabase(...). */
  label: string;
  /** True once shutdown began: stop retrying. */
  stopping: () => boolean;
}

/**
 * Migrations and the signing keys, retried with backoff while the database cannot be reached (one
 * JSON log line per failed attempt); a database, role or host that does not exist, or a refused password, is
 * a ConfigError (permanent-database-errors.ts); any other failure (a migration that does not apply) is thrown.
 * Answers undefined when shutdown began first.
 */
export async function prepareDatabase(
  database: DatabaseHandle,
  options: PrepareDatabaseOptions,
): Promise<KeyRing | undefined> {
  for (let attempt = 1; !options.stopping(); attempt++) {
    try {
      await migrateDatabase(database.db);
      // Today's and the next days' partitions before the first request; one not made now (its lock not had
      // in time) is made by the periodic pass, and its rows wait in the default partition meanwhile.
      const upkeep = await ensurePartitionsAhead(database.db, options.clock.now());
      if (upkeep.deferred.length > 0) options.logger.warn('partitions deferred', { ...upkeep });
      // One rule for every secret at rest: with a KEK, webhook secrets kept in clear are sealed, as signing keys are.
      const kek = options.keyStore?.kek;
      const sealed = kek ? await sealWebhookSecretsInClear(database.db, kek) : 0;
      if (sealed > 0)
        options.logger.warn('webhook secrets sealed', {
          endpoints: sealed,
          detail: `sealed the secrets of ${sealed} webhook endpoint(s) kept in clear under KEY_ENCRYPTION_KEY`,
        });
      // So are install codes kept under their plain SHA-256 before the KEK was set: keyed, and still working.
      const keyedCodes = kek ? await keyInstallCodeHashes(database.db, keyedHashes(kek)) : 0;
      if (keyedCodes > 0)
        options.logger.warn('install code hashes keyed', {
          install_codes: keyedCodes,
          detail: `kept the hashes of ${keyedCodes} install code(s) stored before KEY_ENCRYPTION_KEY keyed under it`,
        });
      return options.keys ?? (await loadKeyRing(database.db, undefined, options.clock.now(), options.keyStore));
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      // A database, role or host that is not there, or a refused password: waiting cannot cure it, so the start
      // fails (one line, exit 1) and a service manager's Restart=on-failure shows it, instead of 503s forever.
      const refusal = permanentDatabaseProblem(err, options.label);
      if (refusal) throw new ConfigError(refusal);
      const { error, code } = errorFields(err);
      const delay = retryDelayMs(attempt);
      options.logger.warn('database not ready, retrying', {
        attempt,
        retry_in_ms: delay,
        database: options.label,
        error,
        code,
      });
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  return undefined;
}
