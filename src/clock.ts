/** The one source of "now". Injected so that tests can pin time (expiry, UTC buckets). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * ISO 8601 with a numeric UTC offset, as the seed asks (`+00:00`, never `Z`), in whole seconds: every
 * expiry the API states is a whole second (token `exp` claims are), so no answer mixes precisions.
 */
export function toIsoOffset(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}

/** The start of the second holding `date`: where expiries are counted from, so that they are whole seconds. */
export function wholeSecond(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}
