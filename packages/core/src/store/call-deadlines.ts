interface Waiter {
  deadline: number;
  reject: (error: Error) => void;
  makeError: () => Error;
}

/**
 * Deadlines for many concurrent calls with one shared timer instead of a timer per call, which
 * matters at tens of thousands of schedules a second. Every call gets the same timeout, so the
 * insertion order of the set is also deadline order and a sweep stops at the first live waiter.
 * Precision is `resolutionMs`.
 */
export class CallDeadlines {
  private readonly waiters = new Set<Waiter>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly resolutionMs = Math.max(5, Math.min(50, Math.floor(timeoutMs / 10))),
  ) {}

  /**
   * Settles with `promise`, or rejects with `makeError()` when it has not settled within the
   * timeout. A `deadline` earlier than now + timeout may be given (it then expires at a sweep
   * that reaches it; it never delays the expiry of the waiters added before it).
   */
  run<T>(promise: Promise<T>, makeError: () => Error, deadline = Date.now() + this.timeoutMs): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = { deadline, reject, makeError };
      this.waiters.add(waiter);
      this.arm();
      promise.then(
        (value) => {
          this.waiters.delete(waiter);
          resolve(value);
        },
        (error: unknown) => {
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
    const now = Date.now();
    for (const waiter of this.waiters) {
      if (waiter.deadline > now) break;
      this.waiters.delete(waiter);
      waiter.reject(waiter.makeError());
    }
    if (this.waiters.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
