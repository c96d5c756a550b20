import { Injectable } from '@nestjs/common';
import { ModuleNotStartedError } from './errors/module-not-started.error.js';

/**
 * Settles once the module has bootstrapped: handlers bound and pollers started (or known not to be
 * needed). Lets a producer that runs during bootstrap wait until this instance also fires.
 */
@Injectable()
export class TimeoutReadinessWatcher {
  private readonly ready: Promise<void>;
  private resolveReady!: () => void;
  private rejectReady!: (error: Error) => void;

  constructor() {
    this.ready = new Promise<void>((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    // A failed bootstrap already fails the application; only callers of waitUntilReady see the rejection.
    this.ready.catch(() => undefined);
  }

  /** Marks the module ready. */
  markReady(): void {
    this.resolveReady();
  }

  /** Marks the bootstrap as failed; pending and later `waitUntilReady()` calls reject. */
  markFailed(cause: unknown): void {
    this.rejectReady(new ModuleNotStartedError({ cause }));
  }

  /** Resolves when the module is ready. */
  waitUntilReady(): Promise<void> {
    return this.ready;
  }
}
