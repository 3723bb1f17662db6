import { systemClock } from '../clock.js';
import { loadConfig, type Config } from '../config.js';
import { openDatabase } from '../db/client.js';
import type { Database } from '../db/database.js';
import { lockDataDir } from '../db/data-dir-lock.js';
import { migrateDatabase } from '../db/migrate.js';

/**
 * Opens the service's own database from its settings (DATABASE_URL, or the embedded one in DATA_DIR,
 * which only one process may hold: stop the server first), applies the migrations, runs `fn`, closes.
 */
export async function withServiceDatabase<T>(
  env: Record<string, string | undefined>,
  fn: (db: Database, config: Config, now: Date) => Promise<T>,
): Promise<T> {
  const config = loadConfig(env);
  // An embedded folder a server (or another command) holds is refused with one line, as a second server is.
  const lock = !config.databaseUrl && !config.dataDir.startsWith('memory://') ? lockDataDir(config.dataDir) : undefined;
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrateDatabase(database.db);
    return await fn(database.db, config, systemClock.now());
  } finally {
    await database.close();
    lock?.release();
  }
}
