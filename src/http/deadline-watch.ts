/**
 * Deadlines for many requests on one timer. Every request of a watch gets the same deadline, so their
 * deadlines fall in the order they started: a queue, checked from its head every `tickMs` while any
 * request waits. A request costs one promise and a queue entry instead of its own timer, race and
 * clearTimeout; a deadline is noticed at most `tickMs` late.
 */
export const EXPIRED: unique symbol = Symbol('expired');

interface Waiting {
  deadline: number;
  settled: boolean;
  expire(): void;
}

export interface DeadlineWatch {
  /** What `work` gives, or EXPIRED once the deadline passed first (`work` is left to finish on its own). */
  race<T>(work: Promise<T>): Promise<T | typeof EXPIRED>;
}

export function deadlineWatch(deadlineMs: number, tickMs = Math.max(1, Math.min(50, deadlineMs / 8))): DeadlineWatch {
  let queue: Waiting[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | undefined;

  const tick = () => {
    const now = performance.now();
    while (head < queue.length) {
      const waiting = queue[head]!;
      if (!waiting.settled) {
        if (waiting.deadline > now) break;
        waiting.settled = true;
        waiting.expire();
      }
      head++;
    }
    if (head === queue.length) {
      // Nobody waits: the timer stops until the next request.
      queue = [];
      head = 0;
      clearInterval(timer);
      timer = undefined;
    } else if (head > 1024) {
      queue = queue.slice(head);
      head = 0;
    }
  };

  return {
    race<T>(work: Promise<T>) {
      return new Promise<T | typeof EXPIRED>((resolve, reject) => {
        const waiting: Waiting = {
          deadline: performance.now() + deadlineMs,
          settled: false,
          expire: () => resolve(EXPIRED),
        };
        queue.push(waiting);
        timer ??= setInterval(tick, tickMs);
        work.then(
          (value) => {
            if (waiting.settled) return;
            waiting.settled = true;
            resolve(value);
          },
          (error: unknown) => {
            if (waiting.settled) return;
            waiting.settled = true;
            reject(error);
          },
        );
      });
    },
  };
}
