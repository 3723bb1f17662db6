import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deadlineWatch, EXPIRED } from '../../src/http/deadline-watch.js';

// One timer for the deadlines of every request waiting on the database (the gate of database-gate.ts).
describe('the deadline watch', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

  it('answers what the work gives when it finishes before the deadline, and its error when it fails', async () => {
    const watch = deadlineWatch(800);
    const done = watch.race(later(100, 'answered'));
    const failed = expect(watch.race(Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    await vi.advanceTimersByTimeAsync(100);
    await expect(done).resolves.toBe('answered');
    await failed;
  });

  it('answers EXPIRED for each request still waiting at its deadline, in the order they started, and not the others', async () => {
    const watch = deadlineWatch(800);
    const stalled = watch.race(new Promise<never>(() => {}));
    await vi.advanceTimersByTimeAsync(400);
    const second = watch.race(later(600, 'answered'));
    const third = watch.race(new Promise<never>(() => {}));
    const outcomes: unknown[] = [];
    for (const p of [stalled, second, third]) void p.then((v) => outcomes.push(v));
    await vi.advanceTimersByTimeAsync(450);
    expect(outcomes).toEqual([EXPIRED]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(outcomes).toEqual([EXPIRED, 'answered', EXPIRED]);
  });

  it('stops its timer once nobody waits', async () => {
    const watch = deadlineWatch(800);
    const answered = watch.race(Promise.resolve(1));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    await expect(answered).resolves.toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});
