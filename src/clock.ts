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
  const ms = date.getTime();
  // The day's text is toISOString's own, kept for the days seen last (an export writes five times a
  // row: toISOString took more of its CPU than anything of the service's). An invalid date throws as
  // toISOString does, and years outside 0000–9999 (written ±YYYYYY) are left to it.
  if (!(ms >= FIRST_YEAR_0000 && ms < FIRST_YEAR_10000)) return `${date.toISOString().slice(0, 19)}+00:00`;
  const day = Math.floor(ms / DAY_MS);
  const slot = day & (DAY_SLOTS - 1);
  let prefix = dayPrefixes[slot];
  if (dayNumbers[slot] !== day || prefix === undefined) {
    prefix = date.toISOString().slice(0, -13);
    dayPrefixes[slot] = prefix;
    dayNumbers[slot] = day;
  }
  const second = Math.floor((ms - day * DAY_MS) / 1000);
  const hh = Math.floor(second / 3600);
  const mm = Math.floor(second / 60) % 60;
  return `${prefix}${TWO_DIGITS[hh]}:${TWO_DIGITS[mm]}:${TWO_DIGITS[second % 60]}+00:00`;
}

const DAY_MS = 86_400_000;
const FIRST_YEAR_0000 = -62_167_219_200_000;
const FIRST_YEAR_10000 = 253_402_300_800_000;
/** Days whose `YYYY-MM-DDT` is kept (a power of two): a day's slot is its number's low bits. */
const DAY_SLOTS = 64;
const dayPrefixes: (string | undefined)[] = new Array(DAY_SLOTS).fill(undefined);
const dayNumbers: number[] = new Array(DAY_SLOTS).fill(Number.NaN);
const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));

/** The start of the second holding `date`: where expiries are counted from, so that they are whole seconds. */
export function wholeSecond(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/**
 * The one range of times the API accepts from a caller (a list's `since` and `until`, a cursor's time, an
 * expiry), in epoch milliseconds: 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z. Past it PostgreSQL
 * cannot read the time as JavaScript writes it (year 0, or `+010000-…`: SQLSTATE 22007/22008/22009), and no
 * item of the service's is dated there; outside it a time is 400 `validation_failed`.
 */
const ACCEPTED_TIMES = { earliest: 0, latest: FIRST_YEAR_10000 - 1 } as const;

export function isAcceptedTime(ms: number): boolean {
  return ms >= ACCEPTED_TIMES.earliest && ms <= ACCEPTED_TIMES.latest;
}
