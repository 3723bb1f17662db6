import type { Clock } from '../../src/clock.js';

/** Where every test app's clock starts: 10:00 UTC, one hour before an hour bucket boundary. */
export const TEST_EPOCH = '2026-11-22T10:00:00.000Z';

/** A clock that moves only when a test says so. */
export class TestClock implements Clock {
  constructor(private current: Date = new Date(TEST_EPOCH)) {}
  now(): Date {
    return new Date(this.current);
  }
  set(iso: string | Date): void {
    this.current = new Date(iso);
  }
  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}
