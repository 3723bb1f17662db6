import type { CheckinBatcher } from './domain/servers/checkins.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { DatabaseAvailability } from './db/availability.js';
import type { Database } from './db/database.js';
import type { StateCountsReading } from './domain/admin-lists/state-counts-reading.js';
import type { KeyedHashes } from './domain/tokens/keyed-hashes.js';
import type { IdentityIssuers } from './domain/identity/issuer-keys.js';
import type { ReadRouting } from './db/read-routing.js';
import type { ReceiptKeys } from './domain/tokens/receipt-keys.js';
import type { RateLimitOverrides } from './domain/rate-limits/override-cache.js';
import type { KeyRing } from './domain/tokens/signing-keys.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics/metrics.js';
import type { Tracing } from './tracing/tracing.js';

/** What the app is built from: injected, never module-level, so tests build an app with their own. */
export interface AppDeps {
  /** The primary: every write, and every read that must not be behind (src/db/read-routing.ts says which). */
  db: Database;
  /** Where the operators' reads that may be a little behind go (DATABASE_READ_URL); left out, the primary. */
  reads?: ReadRouting;
  clock: Clock;
  config: Config;
  logger: Logger;
  keys: KeyRing;
  /** The fleet's counts read by the periodic pass (the gauges' and the console overview's); left out, or before its first reading, the overview counts. */
  counts?: StateCountsReading;
  /** Left out, the app makes its own registry (answered in `App.metrics`). */
  metrics?: Metrics;
  /** Whether the database answers (src/db/client.ts): left out, it is taken as always there. */
  availability?: DatabaseAvailability;
  /** True once shutdown has begun (readiness fails during the drain). */
  isDraining?: () => boolean;
  /** The workload identity issuers' keys (DESIGN §25); left out, the app keeps its own (tests hand one trusting their https issuer). */
  identityIssuers?: IdentityIssuers;
  /** Present only while tracing is on (OTEL_* variables): then each request has a server span. */
  tracing?: Tracing;
}

/** What routes receive: the app's deps and what the app makes from them, one per app (so per instance). */
export interface RouteDeps extends AppDeps {
  reads: ReadRouting;
  /** This instance's copy of the operators' rate-limit overrides. */
  rateLimitOverrides: RateLimitOverrides;
  /** The keys that signed receipts, kept and published beside the ring's (one per app). */
  receiptKeys: ReceiptKeys;
  /** This instance's check-ins, gathered into one statement per turn of the event loop. */
  checkins: CheckinBatcher;
  /** The hashes kept of guessable values (root's console sessions, events' client keys, rate-limit subjects): keyed by KEY_ENCRYPTION_KEY when set. */
  keyedHashes: KeyedHashes;
  identityIssuers: IdentityIssuers;
}
