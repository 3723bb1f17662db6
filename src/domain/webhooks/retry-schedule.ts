/**
 * After the first attempt (at once), a failed message is tried again after about these delays
 * (§15): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts over about 27 hours, then it
 * is `failed` (kept for replay).
 */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600];

/** Each delay is moved by up to this fraction either way, so that retries of many messages spread out. */
export const RETRY_JITTER = 0.1;

/**
 * When to try again after `attempts` failed attempts, or undefined when the schedule is done.
 * `random` is in [0, 1): 0.5 gives the delay itself.
 */
export function nextAttemptAt(attempts: number, now: Date, random: () => number = Math.random): Date | undefined {
  const delay = RETRY_DELAYS_SECONDS[attempts - 1];
  if (delay === undefined) return undefined;
  const jittered = delay * (1 + RETRY_JITTER * (2 * random() - 1));
  return new Date(now.getTime() + Math.round(jittered * 1000));
}
