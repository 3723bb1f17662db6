import type { Clock } from '../../src/clock.js';

/** A clock that moves only when a test says so. */
export class TestClock implements Clock {
  constructor(private current: Date = new Date('2026-11-22T10:00:00.000Z')) {}
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
