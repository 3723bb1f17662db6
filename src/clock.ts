/** The one source of "now". Injected so that tests can pin time (expiry, UTC buckets). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 with a numeric UTC offset, as the seed asks (`+00:00`, never `Z`). */
export function toIsoOffset(date: Date): string {
  return date.toISOString().replace(/Z$/, '+00:00');
}
