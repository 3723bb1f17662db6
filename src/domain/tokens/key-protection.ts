import { ConfigError } from '../../config-error.js';
import type { Config } from '../../config.js';

/**
 * How the service keeps its private signing keys, as its settings decide it: `configured` (SIGNING_KEYS:
 * none in the database), `sealed` (under KEY_ENCRYPTION_KEY) or `clear` (allowed: REQUIRE_KEY_ENCRYPTION
 * is false). `detail` is the start line's words.
 */
export interface KeyProtection {
  mode: 'configured' | 'sealed' | 'clear';
  detail: string;
}

type KeySettings = Pick<Config, 'databaseUrl' | 'signingKeys' | 'keyEncryptionKey' | 'requireKeyEncryption'>;

/**
 * Decided at start, before the database is opened. Encryption required (REQUIRE_KEY_ENCRYPTION, true by
 * default on PostgreSQL, whose backups and replicas would otherwise carry keys that forge every token)
 * with keys kept in the database and no KEY_ENCRYPTION_KEY refuses the start with one line saying what
 * to set.
 */
export function keyProtection(config: KeySettings): KeyProtection {
  if (config.signingKeys)
    return { mode: 'configured', detail: 'the signing keys come from SIGNING_KEYS; none is kept in the database' };
  const onPostgres = config.databaseUrl !== undefined;
  if (config.keyEncryptionKey) {
    return {
      mode: 'sealed',
      detail: `private signing keys in the database are sealed under KEY_ENCRYPTION_KEY (REQUIRE_KEY_ENCRYPTION=${config.requireKeyEncryption}${config.requireKeyEncryption ? ': none is ever kept in clear' : ''})`,
    };
  }
  if (config.requireKeyEncryption) {
    const ways = [
      'set KEY_ENCRYPTION_KEY (npx slowdns keys generate prints one)',
      'give the keys in SIGNING_KEYS',
      ...(onPostgres ? ['set REQUIRE_KEY_ENCRYPTION=false to keep them in clear'] : []),
    ];
    const why = onPostgres
      ? 'on PostgreSQL (REQUIRE_KEY_ENCRYPTION is true, the default with DATABASE_URL)'
      : '(REQUIRE_KEY_ENCRYPTION=true)';
    throw new ConfigError(
      `KEY_ENCRYPTION_KEY is required ${why} to seal the signing keys kept in the database: ${ways.slice(0, -1).join(', ')} or ${ways.at(-1)}`,
    );
  }
  return {
    mode: 'clear',
    detail: `private signing keys are kept in clear in the database (REQUIRE_KEY_ENCRYPTION=false, ${onPostgres ? 'set by the operator' : 'the default on the embedded database'}): set KEY_ENCRYPTION_KEY to seal them`,
  };
}
