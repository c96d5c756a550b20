import { Inject, Injectable } from '@nestjs/common';
import { DurableTimeouts } from '@durable-timeout/core';
import { ManualClock } from '@durable-timeout/core/testing';
import { DURABLE_TIMEOUTS } from '../durable-timeout.constants.js';
import { DURABLE_TIMEOUT_TESTING_CLOCK, MAX_FIRE_ROUNDS } from './timeout-testing.constants.js';

/**
 * The time of `DurableTimeoutTestingModule`. Nothing fires by itself: move the clock and the due
 * timeouts run through the application's real `@OnTimeout` handlers, and `advanceBy` resolves once
 * those handlers have finished (including retries that became due and timeouts they scheduled due now).
 *
 * ```ts
 * await scheduler.schedule('payment', 'order-1', { delayMs: 60_000 });
 * await clock.advanceBy(60_000); // the payment handler ran
 * ```
 */
@Injectable()
export class TimeoutTestingClock {
  constructor(
    @Inject(DURABLE_TIMEOUT_TESTING_CLOCK) private readonly manualClock: ManualClock,
    @Inject(DURABLE_TIMEOUTS) private readonly engine: DurableTimeouts,
  ) {}

  /** The underlying manual clock (the store's clock). */
  get clock(): ManualClock {
    return this.manualClock;
  }

  /** Current time of the store, ms since the epoch. */
  now(): number {
    return this.manualClock.now();
  }

  /** Moves time forward by `ms` and runs every timeout due by then; resolves with how many handler runs there were. */
  async advanceBy(ms: number): Promise<number> {
    this.manualClock.advanceBy(ms);
    return this.fireDue();
  }

  /** Moves time to `at` (not backwards) and runs every timeout due by then; resolves with how many handler runs there were. */
  async advanceTo(at: Date | number): Promise<number> {
    this.manualClock.set(at);
    return this.fireDue();
  }

  /** Runs every timeout due now (without moving time), until none is left; resolves with how many handler runs there were. */
  async fireDue(): Promise<number> {
    let total = 0;
    for (let round = 0; round < MAX_FIRE_ROUNDS; round += 1) {
      const fired = await this.engine.fireDue();
      if (fired === 0) break;
      total += fired;
    }
    return total;
  }
}
