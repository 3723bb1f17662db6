/** A background task run by `startPeriodicPass`: stopping it waits for the pass under way. */
export interface PeriodicPass {
  stop(): Promise<void>;
}

/**
 * Runs `pass` every `everyMs` on an unref'd timer (it never keeps the process alive), one pass at a time:
 * a tick that finds the last pass still running is skipped. `pass` handles its own errors.
 */
export function startPeriodicPass(pass: () => Promise<void>, everyMs: number): PeriodicPass {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= pass().finally(() => {
      running = undefined;
    });
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
