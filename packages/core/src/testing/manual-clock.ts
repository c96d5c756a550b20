import { InvalidClockTimeError } from './invalid-clock-time.error.js';
import { testingMessages } from './testing.messages.js';

/** Called after a `ManualClock` moved, with the new and the previous time. */
export type ClockListener = (now: number, previous: number) => void;

/**
 * A clock that moves only when told to, for unit tests with `MemoryTimeoutStore`: schedule a
 * timeout 60 s ahead, `clock.advanceBy(60_000)`, and it is due at once, without waiting or fake
 * timers. Times are milliseconds since the epoch. Like the Redis server clock it stands in for, it
 * never goes back.
 */
export class ManualClock {
  private current: number;
  private readonly listeners = new Set<ClockListener>();

  /** @param startMs the initial time, ms since the epoch. Default: `Date.now()` when created. */
  constructor(startMs: number = Date.now()) {
    if (!Number.isFinite(startMs)) throw new InvalidClockTimeError(testingMessages.invalidTime(startMs));
    this.current = Math.floor(startMs);
  }

  /** The current time, ms since the epoch. */
  now(): number {
    return this.current;
  }

  /** Moves the clock forward by `ms` (>= 0) and returns the new time. */
  advanceBy(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new InvalidClockTimeError(testingMessages.invalidStep(ms));
    return this.moveTo(this.current + Math.floor(ms));
  }

  /** Sets the clock to `ms` (a `Date` or ms since the epoch; not before the current time) and returns it. */
  set(ms: number | Date): number {
    const target = ms instanceof Date ? ms.getTime() : ms;
    if (!Number.isFinite(target)) throw new InvalidClockTimeError(testingMessages.invalidTime(target));
    if (target < this.current) throw new InvalidClockTimeError(testingMessages.backwards(target, this.current));
    return this.moveTo(Math.floor(target));
  }

  /**
   * Calls `listener` after every move of the clock (the in-memory store uses it to wake pollers of
   * slots that became due). Returns a function that removes the listener.
   */
  onAdvance(listener: ClockListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private moveTo(next: number): number {
    const previous = this.current;
    this.current = next;
    if (next !== previous) for (const listener of [...this.listeners]) listener(next, previous);
    return next;
  }
}
