import type { ClaimedTimeout, ClaimResult, LatePolicy, LeaseExpiryPolicy, SlotRateLimit, SlotRef } from '../store/timeout-store.js';
import type { EngineContext } from './engine-context.js';
import type { ClaimCapacity } from './claim-capacity.js';
import { redisRetryDelayMs } from '../support/retry-backoff.js';

/** How much a poller may claim: the topic's `ClaimCapacity`, shared by its pollers. */
export type PollerCapacity = Pick<ClaimCapacity, 'reserve' | 'unreserve'>;

/**
 * Where a poller hands what its claims bring back: the worker of its topic (the `TopicWorker`),
 * with the topic's batch and lease settings.
 */
export interface ClaimSink {
  readonly options: { readonly batchSize: number; readonly leaseMs: number; readonly late?: LatePolicy | undefined };
  /** The policy the store applies to the topic's expired leases. */
  readonly leaseExpiry: LeaseExpiryPolicy;
  /** The token bucket of each of the topic's slots, when the topic has a rate limit. */
  readonly slotRate: SlotRateLimit | undefined;
  /** False once the topic is halting: a claim that comes back is released, not dispatched. */
  readonly active: boolean;
  /** A claim of `slot` goes out now (the worker may send the slot's waiting acks with it). */
  beforeClaim?(slot: number): void;
  /** Starts the handlers of what a claim of `slot` brought back. */
  dispatch(slot: number, result: ClaimResult): void;
  /** Gives back timeouts claimed after the topic stopped being active. */
  releaseClaimed(ref: SlotRef, claimed: readonly ClaimedTimeout[]): Promise<void>;
}

/**
 * - `stopped`: not polling (before start, after stop);
 * - `claiming`: a claim loop runs (claim, dispatch, claim again while batches come back full);
 * - `sleeping`: a timer is set for the slot's next due time, its earliest lease expiry or the backstop sweep;
 * - `waiting`: the topic's concurrency is used up; the worker resumes this poller when it frees;
 * - `backoff`: the last claim failed; a timer retries it.
 */
type PollerState = 'stopped' | 'claiming' | 'sleeping' | 'waiting' | 'backoff';

/** Most a timer is set early by the event loop's cached clock; waking this much later saves an empty claim. */
const TIMER_MARGIN_MS = 1;

/** Smallest batch a poller asks for after a claim that did not fill its batch (see `wanted`). */
const TRICKLE_BATCH = 16;

/**
 * Fires the due timeouts of one slot. There is no fixed polling interval: after each claim the
 * poller sleeps until the slot's next due time (from the claim, in store time), or until a
 * wake-up says a schedule landed earlier, or until the slot's earliest lease ends (so the
 * timeouts of a worker that died fire again right after their lease), and at most
 * `sweepIntervalMs` (jittered down by up to 15%) so a lost wake-up is picked up by the backstop sweep.
 * A full batch means more is due: it claims again at once.
 */
export class SlotPoller {
  /** `performance.now()` when the last claim came back (or the poller started). */
  lastCycleAt = 0;
  /**
   * How many timeouts the next claim asks for: `batchSize` at start and after a full batch (more
   * is due), otherwise twice what the last claim brought back, at least `TRICKLE_BATCH`. The
   * worker reserves capacity for it while the claim is out.
   */
  wanted: number;
  private state: PollerState = 'stopped';
  /** Cancels the sleep under way (a wake-up filed on the engine's `WakeGrid`, or a timer of its own). */
  private timer: (() => void) | undefined;
  /** Earliest due time announced while a claim was out (the claim may not have seen it). */
  private wakeHint = Number.POSITIVE_INFINITY;
  private failures = 0;
  /** The first sweep after `start` is spread over the whole interval, so pollers started together do not sweep together. */
  private firstSweep = true;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly worker: ClaimSink,
    private readonly context: EngineContext,
    readonly ref: SlotRef,
    /** Reserves what a claim asks for until it comes back; parks the poller while none is free. */
    private readonly capacity: PollerCapacity,
  ) {
    this.wanted = worker.options.batchSize;
  }

  /** Starts polling with an immediate claim. */
  start(): void {
    if (this.state !== 'stopped') return;
    this.lastCycleAt = performance.now();
    this.state = 'sleeping';
    this.firstSweep = true;
    this.wanted = this.worker.options.batchSize;
    this.runNow();
  }

  /** Stops polling. A claim already out finishes; the worker releases what it brings back. */
  halt(): void {
    this.clearTimer();
    if (this.state !== 'claiming') this.state = 'stopped';
  }

  /**
   * How long since this poller last finished a claim. A poller parked for capacity counts as
   * current: it is waiting for this instance's handlers, not stuck on the store.
   */
  idleMs(now: number): number {
    return this.state === 'waiting' ? 0 : now - this.lastCycleAt;
  }

  /** Settles when the claim loop running now (if any) has returned. */
  get settled(): Promise<void> {
    return this.loop;
  }

  /** Claims now, unless a claim is already out or the poller is stopped. */
  runNow(): void {
    if (this.state === 'claiming' || this.state === 'stopped') return;
    this.clearTimer();
    this.loop = this.claimLoop();
  }

  /**
   * A schedule landed in this slot with this due time (store time), ahead of what the slot held.
   * A sleeping poller claims at once rather than re-aiming its timer from its estimate of the store
   * clock: the claim answers with the store's own `now` and next due time, so a wrong estimate (a
   * manual test clock that jumped) cannot delay the timeout, and wake-ups are rare (only when a
   * slot's earliest due time moves earlier), so the extra claim costs little.
   */
  wake(dueAt: number): void {
    if (this.state === 'claiming') {
      if (dueAt < this.wakeHint) this.wakeHint = dueAt;
    } else if (this.state === 'sleeping') {
      this.runNow();
    }
  }

  /** After a reconnect: wake-ups may have been lost, so claim now instead of waiting for the sweep. */
  sweepNow(): void {
    if (this.state === 'sleeping' || this.state === 'backoff') this.runNow();
  }

  private async claimLoop(): Promise<void> {
    this.state = 'claiming';
    try {
      while (await this.claimOnce()) {
        // A full batch: more is due, claim again at once.
      }
    } catch (error) {
      if (!this.worker.active) {
        this.state = 'stopped';
        return;
      }
      this.failures++;
      this.context.reportError(error, 'claim', this.ref.topic);
      this.state = 'backoff';
      this.setTimer(redisRetryDelayMs(this.failures));
    }
  }

  /** One claim and its dispatch. True when the batch came back full. */
  private async claimOnce(): Promise<boolean> {
    const { worker, context, ref } = this;
    if (!worker.active) {
      this.state = 'stopped';
      return false;
    }
    const limit = this.capacity.reserve(this);
    if (limit === 0) {
      this.state = 'waiting';
      return false;
    }
    let result: ClaimResult;
    let dispatched = false;
    try {
      this.wakeHint = Number.POSITIVE_INFINITY;
      worker.beforeClaim?.(ref.slot);
      const sentAt = performance.now();
      result = await context.deliveries.claim(ref, limit, worker.options.leaseMs, worker.leaseExpiry, worker.options.late, worker.slotRate);
      const receivedAt = performance.now();
      this.lastCycleAt = receivedAt;
      this.failures = 0;
      context.reportHealthy();
      context.clock.sample(result.now, sentAt, receivedAt);
      if (worker.active) {
        dispatched = true;
        worker.dispatch(ref.slot, result);
      }
    } finally {
      this.capacity.unreserve(limit);
    }
    if (!dispatched) {
      // Stopped while the claim was out: hand its timeouts back rather than run them.
      this.state = 'stopped';
      await worker.releaseClaimed(ref, result.claimed);
      return false;
    }
    const { batchSize } = worker.options;
    // Timeouts the late policy refused count as taken: a batch full of them means a backlog too.
    if (takenCount(result) >= limit) {
      this.wanted = batchSize;
      return true;
    }
    this.wanted = Math.min(batchSize, Math.max(TRICKLE_BATCH, 2 * result.claimed.length));
    if (!worker.active) {
      // A handler stopped the engine during dispatch: no timer may outlive the stop.
      this.state = 'stopped';
      return false;
    }
    this.state = 'sleeping';
    // The earliest lease counts too: when it ends (its worker died, or it is our own handler still
    // running) the claim at that moment returns it to due and fires it, instead of the sweep.
    // Leases this instance holds and acks in time just cost one empty claim at their expiry.
    const nextLease = result.nextLeaseExpiresAt ?? Number.POSITIVE_INFINITY;
    this.sleepUntil(Math.min(result.nextDueAt ?? Number.POSITIVE_INFINITY, nextLease, this.wakeHint));
    return false;
  }

  private sleepUntil(dueAt: number): void {
    const spread = this.firstSweep ? Math.random() : 0.85 + 0.15 * Math.random();
    this.firstSweep = false;
    const sweepMs = this.context.sweepIntervalMs * spread;
    const untilDue = dueAt === Number.POSITIVE_INFINITY ? sweepMs : Math.ceil(this.context.clock.msUntil(dueAt)) + TIMER_MARGIN_MS;
    const delay = Math.max(0, Math.min(sweepMs, untilDue));
    this.setTimer(delay);
  }

  /**
   * Sleeps `delayMs`, on the engine's `WakeGrid`: the wake-up comes at the first tick at or after
   * it, with those of the other pollers due in the same tick, so their claims meet in one call.
   */
  private setTimer(delayMs: number): void {
    this.clearTimer();
    const grid = this.context.wakeGrid;
    if (grid) {
      this.timer = grid.after(delayMs, this.onTimer);
    } else {
      const timer = setTimeout(this.onTimer, delayMs);
      this.timer = () => clearTimeout(timer);
    }
  }

  private clearTimer(): void {
    if (this.timer === undefined) return;
    this.timer();
    this.timer = undefined;
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.runNow();
  };
}

/** How many due timeouts a claim took from its slot: those claimed and those the late policy refused. */
export function takenCount(result: ClaimResult): number {
  let taken = result.claimed.length;
  for (const incident of result.incidents) if (incident.kind === 'late_dead' || incident.kind === 'late_skipped') taken++;
  return taken;
}
