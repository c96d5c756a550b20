interface Waiter {
  /** `performance.now()` at which the call fails. */
  deadline: number;
  /** Set once the call settled or was failed: the other outcome is then ignored. */
  settled: boolean;
  reject: (error: Error) => void;
  makeError: () => Error;
}

/**
 * Deadlines for many concurrent calls with one shared timer instead of a timer per call, which
 * matters at tens of thousands of schedules a second. Every call gets the same timeout, so the
 * insertion order of the set is also deadline order and a sweep stops at the first live waiter.
 * Precision is `resolutionMs`. Time is the monotonic `performance.now()`: a step of the wall clock
 * (NTP, a VM resumed) neither fails a healthy call nor lets one wait on a stalled Redis for ever.
 * A call past its deadline fails only after the event loop has read what arrived meanwhile (the
 * failure waits for the loop's check phase, after its I/O): when this process itself was stalled
 * (a long synchronous stretch, a starved CPU), its timers come due before it reads the replies
 * Redis sent in time, and those calls must not fail for the process's own delay.
 */
export class CallDeadlines {
  private readonly waiters = new Set<Waiter>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly resolutionMs = Math.max(5, Math.min(50, Math.floor(timeoutMs / 10))),
  ) {}

  /** Settles with `promise`, or rejects with `makeError()` when it has not settled within the timeout. */
  run<T>(promise: Promise<T>, makeError: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = { deadline: performance.now() + this.timeoutMs, settled: false, reject, makeError };
      this.waiters.add(waiter);
      this.arm();
      promise.then(
        (value) => {
          if (waiter.settled) return;
          waiter.settled = true;
          this.waiters.delete(waiter);
          resolve(value);
        },
        (error: unknown) => {
          if (waiter.settled) return;
          waiter.settled = true;
          this.waiters.delete(waiter);
          reject(error);
        },
      );
    });
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), this.resolutionMs);
    this.timer.unref();
  }

  private sweep(): void {
    const now = performance.now();
    const expired: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.deadline > now) break;
      this.waiters.delete(waiter);
      expired.push(waiter);
    }
    if (expired.length > 0) {
      // After this turn's I/O: a reply read there settles its call first (see the class comment).
      setImmediate(() => {
        for (const waiter of expired) {
          if (waiter.settled) continue;
          waiter.settled = true;
          waiter.reject(waiter.makeError());
        }
      });
    }
    if (this.waiters.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
