import { DurableTimeouts } from '../durable-timeouts.js';
import type { DurableTimeoutsOptions } from '../types.js';
import { ManualClock } from './manual-clock.js';
import { MemoryTimeoutStore } from './memory-timeout-store.js';

/** Options of `createTestingTimeouts`: those of `DurableTimeouts` without a store or connection (`TTopics` as for `DurableTimeouts`). */
export type TestingTimeoutsOptions<TTopics = any> = Omit<DurableTimeoutsOptions<TTopics>, 'store' | 'connection'> & {
  /** Start time of the manual clock (a Date or ms since the epoch). Default: `Date.now()`. */
  startAt?: Date | number;
};

/** What `createTestingTimeouts` returns. */
export interface TestingTimeouts<TTopics = any> {
  /** The engine, on an in-memory store. Register handlers with `handle`; `start` is not needed. */
  timeouts: DurableTimeouts<TTopics>;
  /** The store clock. Moving it alone fires nothing; `advanceBy` does. */
  clock: ManualClock;
  /** The in-memory store (shared state for a second engine, if a test needs two). */
  store: MemoryTimeoutStore;
  /** Moves the clock forward by `ms`, runs every handler that became due, waits for them, and returns how many ran. */
  advanceBy(ms: number): Promise<number>;
}

/**
 * An engine for unit tests: in memory, on a manual clock, silent unless a logger is given.
 *
 * ```ts
 * const { timeouts, advanceBy } = createTestingTimeouts({ topics: { payment: {} } });
 * const fired: string[] = [];
 * timeouts.handle('payment', (event) => { fired.push(event.id); });
 * await timeouts.schedule('payment', 'order-1', { delayMs: 60_000 });
 * await advanceBy(59_999); // fired: []
 * await advanceBy(1);      // fired: ['order-1']
 * ```
 */
export function createTestingTimeouts<TTopics = any>(options: TestingTimeoutsOptions<TTopics>): TestingTimeouts<TTopics> {
  const { startAt, ...engineOptions } = options;
  const clock = new ManualClock(startAt === undefined ? Date.now() : startAt instanceof Date ? startAt.getTime() : startAt);
  const store = new MemoryTimeoutStore(clock);
  const timeouts = new DurableTimeouts<TTopics>({ logger: null, ...engineOptions, store });
  return {
    timeouts,
    clock,
    store,
    advanceBy: async (ms: number) => {
      clock.advanceBy(ms);
      return timeouts.fireDue();
    },
  };
}
