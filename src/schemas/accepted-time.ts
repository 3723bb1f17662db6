import { isAcceptedTime } from '../clock.js';

/** What an instant outside ACCEPTED_TIMES (src/clock.ts) is told: one sentence for every time the API accepts. */
export const ACCEPTED_TIME_MESSAGE = 'must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z';

/** An ISO 8601 instant (already checked as one) inside ACCEPTED_TIMES: each schema of a time refines with it. */
export function withinAcceptedTimes(instant: string): boolean {
  return isAcceptedTime(Date.parse(instant));
}
