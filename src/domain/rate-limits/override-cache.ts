import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { loadActiveOverrides } from './override-changes.js';
import { OverrideTable, type QuotaSource } from './overrides.js';

/** A request finding the table older than this refreshes it in the background and goes on with it. */
export const OVERRIDES_REFRESH_AFTER_SECONDS = 4;
/**
 * A request finding the table older than this waits for a fresh one. So a table is never used more
 * than this long after the read that made it began: an override created or removed on another instance
 * is in force here within this bound (8 s, inside the 10 s the design asks for), and an instance with
 * steady traffic refreshes in the background every 4 s, no request waiting.
 */
export const OVERRIDES_MAX_AGE_SECONDS = 8;

/**
 * This instance's copy of the overrides in place, so that no request reads them: the limiter's quotas
 * come from memory and go to the step's one statement as parameters. Its age is measured on the
 * injected clock (a test moves it to drive a refresh; a clock that went back counts as stale). A change
 * made through this instance invalidates it at once. At most one read runs at a time.
 */
export class RateLimitOverrides {
  private table: OverrideTable | undefined;
  /** The clock (ms) when the read that made `table` began. */
  private loadedAt = 0;
  /** Bumped by `invalidate`: a read begun before it does not install its (older) table. */
  private generation = 0;
  private loading: { generation: number; promise: Promise<OverrideTable> } | undefined;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly onBackgroundError: (error: unknown) => void,
    /** RATE_LIMIT_PROFILE's factor for the default quotas (1 unless trying the service locally). */
    private readonly quotaFactor = 1,
  ) {}

  /** The quotas for a request at `now`. */
  async at(now: Date): Promise<QuotaSource> {
    return (await this.current(now)).at(now);
  }

  /** The table to use at `now`: the one held, refreshed in the background or first, as its age asks. */
  async current(now: Date = this.clock.now()): Promise<OverrideTable> {
    const age = now.getTime() - this.loadedAt;
    if (!this.table || age < 0 || age >= OVERRIDES_MAX_AGE_SECONDS * 1000) return this.refresh(now);
    if (age >= OVERRIDES_REFRESH_AFTER_SECONDS * 1000 && !this.loading) this.refresh(now).catch(this.onBackgroundError);
    return this.table;
  }

  /** Reads the overrides in place now (joining a read already under way since the last invalidation). */
  refresh(now: Date = this.clock.now()): Promise<OverrideTable> {
    if (this.loading?.generation === this.generation) return this.loading.promise;
    const generation = this.generation;
    const promise = loadActiveOverrides(this.db, now).then((overrides) => {
      const table = new OverrideTable(overrides, this.quotaFactor);
      if (generation === this.generation) {
        this.table = table;
        this.loadedAt = now.getTime();
      }
      return table;
    });
    const loading = { generation, promise };
    this.loading = loading;
    const settled = () => {
      if (this.loading === loading) this.loading = undefined;
    };
    promise.then(settled, settled);
    return promise;
  }

  /** Forgets the table: the next request reads the overrides afresh (after a change through this instance). */
  invalidate(): void {
    this.generation += 1;
    this.table = undefined;
  }
}
