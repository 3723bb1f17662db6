// The service as main.ts builds it (database, migrations, signing key, app), in this process, so the
// benchmark drives `app.fetch` with no HTTP client in the way. Kept to the calls every version of
// main.ts makes, so the same benchmark can run against an older commit.
import { createApp } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { migrateDatabase } from '../../src/db/migrate.js';
import { loadKeyRing } from '../../src/domain/tokens/signing-key-store.js';
import { createLogger } from '../../src/logger.js';

/** What a step needs: one request from a client address. */
export interface StepClient {
  request(path: string, init: RequestInit, address: string): Promise<Response>;
}

export interface BenchService extends StepClient {
  handle: DatabaseHandle;
}

/** A migrated database with its signing key: the state a started server is in. */
export async function openStartedDatabase(databaseUrl: string | undefined): Promise<DatabaseHandle> {
  const handle = await openDatabase({ databaseUrl, dataDir: 'memory://' });
  await migrateDatabase(handle.db);
  return handle;
}

export async function startBenchService(databaseUrl: string | undefined): Promise<BenchService> {
  const handle = await openStartedDatabase(databaseUrl);
  const keys = await loadKeyRing(handle.db, undefined, systemClock.now());
  const config = loadConfig({ PUBLIC_BASE_URL: 'http://localhost:8080' });
  const { app } = createApp({ db: handle.db, clock: systemClock, config, logger: createLogger('silent'), keys });
  return {
    handle,
    // The client address as @hono/node-server hands it to the app.
    request: async (path, init, address) =>
      app.request(path, init, { incoming: { socket: { remoteAddress: address } } }),
  };
}
