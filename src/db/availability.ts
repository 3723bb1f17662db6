/** One round trip to the database; rejects when it fails or takes longer than the probe allows. */
export type Ping = () => Promise<void>;

/**
 * Whether the database answers, as the service last saw it. A failed query or a request past its
 * deadline asks for a probe; while the database is unavailable it is probed again after 250 ms, then
 * twice as long each time up to `retryMs`, until it answers again, so the service recovers by itself
 * without a restart (a new primary is written to within ~1 s of accepting writes).
 */
export interface DatabaseAvailability {
  /** False from a failed probe until the next successful one. */
  readonly available: boolean;
  /** A fresh round trip (shared by callers asking at the same time): true when the database answered. */
  check(): Promise<boolean>;
  /** A query failed as if the database were unreachable: probe now rather than wait for the next request. */
  reportFailure(): void;
  /** Stops probing (the database is being closed). */
  close(): void;
}

export interface AvailabilityOptions {
  /** The longest wait between two probes of an unavailable database. */
  retryMs?: number;
  /** Told once when the database goes away and once when it is back. */
  onChange?: (available: boolean, error?: unknown) => void;
}

export function watchAvailability(
  ping: Ping,
  { retryMs = 1000, onChange }: AvailabilityOptions = {},
): DatabaseAvailability {
  let available = true;
  let closed = false;
  let inFlight: Promise<boolean> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;

  const set = (next: boolean, error?: unknown) => {
    failures = next ? 0 : failures + 1;
    if (next === available) return;
    available = next;
    onChange?.(next, error);
  };
  const scheduleRetry = () => {
    if (closed || retry) return;
    retry = setTimeout(
      () => {
        retry = undefined;
        void check();
      },
      Math.min(retryMs, 250 * 2 ** Math.max(0, failures - 1)),
    );
    retry.unref();
  };
  const check = (): Promise<boolean> => {
    inFlight ??= ping()
      .then(
        () => {
          set(true);
          return true;
        },
        (error: unknown) => {
          set(false, error);
          scheduleRetry();
          return false;
        },
      )
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
  return {
    get available() {
      return available;
    },
    check,
    reportFailure: () => void check(),
    close() {
      closed = true;
      if (retry) clearTimeout(retry);
    },
  };
}

/** For a database that cannot be unreachable (tests, scripts): always available, never probed. */
export const alwaysAvailable: DatabaseAvailability = {
  available: true,
  check: () => Promise.resolve(true),
  reportFailure: () => {},
  close: () => {},
};
