// Writes openapi/openapi.json: the same document the server builds at start and serves at /openapi.json.
import { mkdir, writeFile } from 'node:fs/promises';
import { drizzle } from 'drizzle-orm/node-postgres';
import { createApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import * as schema from '../src/db/schema.js';
import { generatePrivateJwk, keyRingFromJwks } from '../src/domain/tokens/signing-keys.js';
import { createLogger } from '../src/logger.js';

// The document does not depend on the database either: a driver that is never connected (no embedded
// database started, no initdb) will do.
const db = drizzle.mock({ schema }) as unknown as Database;
const { document } = createApp({
  db,
  clock: systemClock,
  config: loadConfig({}),
  logger: createLogger('silent'),
  // The document does not depend on the keys: a throwaway one will do.
  keys: await keyRingFromJwks([await generatePrivateJwk()]),
});
await mkdir('openapi', { recursive: true });
await writeFile('openapi/openapi.json', `${JSON.stringify(document, null, 2)}\n`);
console.log('wrote openapi/openapi.json');
