import type { Command } from 'commander';
import { toIsoOffset } from '../clock.js';
import { generateKeyEncryptionKey } from '../domain/tokens/key-encryption.js';
import {
  keyStoreOptions,
  listSigningKeys,
  retireSigningKey,
  rotateSigningKey,
  verifyWindowSeconds,
  type SigningKeyInfo,
} from '../domain/tokens/signing-key-store.js';
import { generatePrivateJwk } from '../domain/tokens/signing-keys.js';
import { CliError } from './cli-error.js';
import { outputFor, type CliContext } from './context.js';
import { withServiceDatabase } from './local-database.js';
import { print } from './output.js';

const at = (date: Date | null) => (date ? toIsoOffset(date) : null);
const keyRecord = (k: SigningKeyInfo) => ({
  kid: k.kid,
  state: k.state,
  encrypted: k.encrypted,
  created_at: at(k.createdAt),
  signing_ended_at: at(k.signingEndedAt),
  verify_until: at(k.verifyUntil),
  retired_at: at(k.retiredAt),
});
const KEY_COLUMNS = ['kid', 'state', 'encrypted', 'created_at', 'verify_until', 'retired_at'];

/** The database's keys are not the ones in use while SIGNING_KEYS is set: say so rather than act on them. */
function refuseWithSigningKeys(signingKeys: string | undefined): void {
  if (signingKeys)
    throw new CliError(
      "SIGNING_KEYS is set: the service signs with those keys, not the database's; rotate by editing SIGNING_KEYS (docs/running.md: Signing keys)",
    );
}

/** `keys generate|list|rotate|retire`: the same functions the server uses on the same database. */
export function registerKeysCommands(program: Command, context: CliContext): void {
  const keys = program
    .command('keys')
    .description(
      'signing keys: generate values for the environment, or list, rotate and retire the keys in the database',
    );

  keys
    .command('generate')
    .description(
      'print a new KEY_ENCRYPTION_KEY and a SIGNING_KEYS value holding one new Ed25519 key (nothing is stored)',
    )
    .option('--json', 'print the values as JSON')
    .action(async (options: { json?: boolean }) => {
      const values = {
        KEY_ENCRYPTION_KEY: generateKeyEncryptionKey(),
        SIGNING_KEYS: JSON.stringify({ keys: [await generatePrivateJwk()] }),
      };
      const out = outputFor(context, options);
      if (out.json) out.write(`${JSON.stringify(values, null, 2)}\n`);
      else out.write(`KEY_ENCRYPTION_KEY=${values.KEY_ENCRYPTION_KEY}\nSIGNING_KEYS='${values.SIGNING_KEYS}'\n`);
    });

  keys
    .command('list')
    .description(
      'the signing keys kept in the database, newest first: signing, verifying (until when), expired or retired',
    )
    .option('--json', 'print the keys as JSON')
    .action(async (options: { json?: boolean }) => {
      const list = await withServiceDatabase(context.env, (db, config, now) =>
        listSigningKeys(db, now, verifyWindowSeconds(config)),
      );
      const records = list.map(keyRecord);
      print(outputFor(context, options), { keys: records }, records, KEY_COLUMNS);
    });

  keys
    .command('rotate')
    .description(
      'make a new signing key; the current one stops signing and verifies until its tokens expire. Running instances pick it up within a minute',
    )
    .option('--json', 'print the keys as JSON')
    .action(async (options: { json?: boolean }) => {
      const { kid, list } = await withServiceDatabase(context.env, async (db, config, now) => {
        refuseWithSigningKeys(config.signingKeys);
        const kid = await rotateSigningKey(db, now, keyStoreOptions(config));
        return { kid, list: await listSigningKeys(db, now, verifyWindowSeconds(config)) };
      });
      const records = list.map(keyRecord);
      print(
        outputFor(context, options),
        { signing: kid, keys: records },
        records,
        KEY_COLUMNS,
        `${kid} signs from now on.`,
      );
    });

  keys
    .command('retire')
    .description('delete the private key of a key that stopped signing and whose tokens have all expired')
    .argument('<kid>', 'the key id (key_…)')
    .option('--force', 'retire it even though tokens it signed may still be valid (they stop working)')
    .option('--json', 'print the key as JSON')
    .action(async (kid: string, options: { force?: boolean; json?: boolean }) => {
      const info = await withServiceDatabase(context.env, (db, config, now) => {
        refuseWithSigningKeys(config.signingKeys);
        return retireSigningKey(db, {
          kid,
          now,
          windowSeconds: verifyWindowSeconds(config),
          force: options.force === true,
        });
      });
      const record = keyRecord(info);
      print(outputFor(context, options), record, [record], KEY_COLUMNS);
    });
}
