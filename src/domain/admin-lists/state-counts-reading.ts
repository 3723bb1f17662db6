import type { StateCounts } from './state-counts.js';
import { startPeriodicPass } from '../upkeep/periodic-pass.js';

/** How often the fleet is counted: a gauge is at most twice this old (the help of each says so). */
const FLEET_READING_EVERY_MS = 15_000;

/**
 * The fleet's counts as the gauges publish them, read by a periodic pass (DESIGN §21), never at a scrape:
 * at a million servers a count reads every row (a server's last check-in is not indexed, so that a
 * check-in stays a HOT update), which a scrape every few seconds from several Prometheus would repeat.
 */
export interface StateCountsReading {
  /** The last reading; undefined before the first one (and after failures only until the next success). */
  latest(): StateCounts | undefined;
  /** Reads now (the pass does this every FLEET_READING_EVERY_MS; tests call it). A failure keeps the last reading. */
  refresh(): Promise<void>;
}

export function stateCountsReading(
  read: () => Promise<StateCounts>,
  onError: (error: unknown) => void = () => {},
): StateCountsReading {
  let latest: StateCounts | undefined;
  return {
    latest: () => latest,
    async refresh() {
      try {
        latest = await read();
      } catch (error) {
        onError(error);
      }
    },
  };
}

/** Reads once (so the gauges are there from the first scrape once the service is ready), then every 15 s. */
export async function startStateCountsReading(reading: StateCountsReading): Promise<{ stop(): Promise<void> }> {
  await reading.refresh();
  return startPeriodicPass(() => reading.refresh(), FLEET_READING_EVERY_MS);
}
