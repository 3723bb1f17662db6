// `npm run prune`: one pruning pass, for cron. It takes the same advisory lock as the servers' own
// interval, so it may run while they run (on PostgreSQL; an embedded PGlite folder can be opened by
// one process only, so there the server prunes itself).
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { migrateDatabase } from '../src/db/migrate.js';
import { pruneOnce } from '../src/domain/pruning.js';

const config = loadConfig(process.env);
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
try {
  await migrateDatabase(database);
  const result = await pruneOnce(database, systemClock.now());
  console.log(JSON.stringify(result ? { pruned: result } : { skipped: 'another instance is pruning' }));
} finally {
  await database.close();
}
