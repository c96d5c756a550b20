/**
 * The spacing of the instants slot pollers wake at. A poller sleeping until its slot's next due
 * time wakes at the first multiple of this (on `performance.now()`) at or after that time, so the
 * pollers whose slots fall due within the same few milliseconds wake in one timer callback, and on
 * one Redis server their claims travel in one script call (store/call-coalescer.ts). The cost is
 * lateness: a wake-up comes at most this much later than it would alone (about half of it on
 * average). docs/ENGINE.md ("Claims that meet") has the trade.
 */
export const WAKE_TICK_MS = 2;

/**
 * One timer for the wake-ups of every slot poller of an engine: each wake-up is filed under the
 * tick (`WAKE_TICK_MS`) it falls in, and when the timer fires every wake-up of the ticks reached
 * runs in that callback, one after the other, before the next turn of the event loop.
 */
export class WakeGrid {
  private readonly ticks = new Map<number, Set<() => void>>();
  private timer: NodeJS.Timeout | undefined;
  private timerTick = Number.POSITIVE_INFINITY;

  /** Calls `wake` at the first tick at or after `delayMs` from now. Returns what cancels it. */
  after(delayMs: number, wake: () => void): () => void {
    // A delay that is not a number wakes at the next tick rather than never (setTimeout's reading of it).
    const tick = Math.ceil((performance.now() + (delayMs > 0 ? delayMs : 0)) / WAKE_TICK_MS);
    let waiting = this.ticks.get(tick);
    if (!waiting) {
      waiting = new Set();
      this.ticks.set(tick, waiting);
    }
    // A wrapper of its own: the same function filed twice is two wake-ups. A wake-up cancelled by
    // one that ran before it in the same callback stays cancelled.
    let cancelled = false;
    const entry = (): void => {
      if (!cancelled) wake();
    };
    waiting.add(entry);
    if (tick < this.timerTick) this.arm(tick);
    const filed = waiting;
    return () => {
      cancelled = true;
      filed.delete(entry);
      if (filed.size === 0 && this.ticks.get(tick) === filed) this.ticks.delete(tick);
      if (this.ticks.size === 0) this.disarm();
    };
  }

  private arm(tick: number): void {
    this.disarm();
    this.timerTick = tick;
    this.timer = setTimeout(this.fire, Math.max(0, tick * WAKE_TICK_MS - performance.now()));
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerTick = Number.POSITIVE_INFINITY;
  }

  private readonly fire = (): void => {
    // The timer's own tick counts as reached even when the event loop's cached clock let it fire a
    // fraction of a millisecond early (the pollers add a margin for that).
    const reached = Math.max(this.timerTick, Math.floor(performance.now() / WAKE_TICK_MS));
    this.timer = undefined;
    this.timerTick = Number.POSITIVE_INFINITY;
    const wakes: (() => void)[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [tick, waiting] of this.ticks) {
      if (tick <= reached) {
        wakes.push(...waiting);
        this.ticks.delete(tick);
      } else if (tick < next) {
        next = tick;
      }
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
    for (const wake of wakes) wake();
  };
}
