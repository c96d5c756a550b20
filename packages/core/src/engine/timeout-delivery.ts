import type { ClaimedTimeout, NextOccurrence } from '../store/timeout-store.js';
import type { TimeoutEvent } from '../types.js';
import { LeaseLostError } from '../errors/lease-lost.error.js';
import { errorMessages } from '../errors/errors.messages.js';

/**
 * One delivery of a claimed timeout: the event a handler receives, plus what the engine needs to
 * ack, fail or release it. It is also the `AckEntry` (`id`, `fencingToken`) handed to the store, so
 * acking a batch allocates nothing per timeout. The abort signal is made on first read: most
 * handlers never look at it, and a burst of fifty thousand should not pay for fifty thousand
 * AbortControllers.
 */
export class TimeoutDelivery<TPayload = unknown> implements TimeoutEvent<TPayload> {
  readonly id: string;
  readonly dueAt: number;
  readonly scheduledAt: number;
  readonly attempt: number;
  readonly fencingToken: number;
  /** Claim time minus due time, store clock (never negative). */
  lateByMs = 0;
  /** Store time when the lease of this delivery ends (claim time + leaseMs). */
  leaseExpiresAt = 0;
  /** `performance.now()` when the handler started. */
  startedAt = 0;
  /** Handler start minus due time, in store-clock ms. */
  latenessMs = 0;
  /** How long the handler ran. */
  durationMs = 0;
  /** Handed back to the store on shutdown: whatever the handler does next is not acked. */
  released = false;
  /** Ran past `maxRunMs`: recorded as failed; whatever the handler does next is ignored. */
  timedOut = false;
  /** The handler returned, threw or was ended: the lease is kept only until its ack or failure is recorded. */
  handlerDone = false;
  /**
   * A cancel removed the timeout while the handler ran (store notice): the signal was aborted with
   * `TimeoutCancelledError`; whatever the handler does next is neither acked nor recorded as failed.
   * Also set when the notice came after the handler ended, its ack or failure record on the way:
   * the store refuses that record, and no `stale` event is told.
   */
  cancelled = false;
  /** A renewal was refused (stale token) or the lease ended unrenewed: the signal was aborted. */
  leaseLost = false;
  /** `performance.now()` when the lease was last set (the claim's dispatch, then each renewal sent). */
  leaseSetAt = 0;
  /** How long the lease set at `leaseSetAt` lasts (leaseMs, or what `extendLease` asked for). */
  leaseHeldMs = 0;
  /** A renewal of this delivery is out. */
  renewing = false;
  /** Renews this delivery's lease now (set by the worker while the handler runs). */
  extender: ((delivery: TimeoutDelivery<TPayload>, ms: number) => Promise<number>) | undefined;
  /**
   * Set by the handler of a recurring schedule's occurrence: once it returns, the ack writes this
   * next occurrence in the same step (`Deliveries.ackNext`) instead of only removing the timeout.
   */
  next: NextOccurrence | undefined;
  /** What an interceptor kept with the timeout when it was scheduled (e.g. a trace context). */
  carried: string | undefined;
  private controller: AbortController | undefined;

  constructor(
    readonly topic: string,
    /** Slot index within the topic. */
    readonly slot: number,
    claimed: ClaimedTimeout,
    readonly payload: TPayload,
  ) {
    this.id = claimed.id;
    this.dueAt = claimed.dueAt;
    this.scheduledAt = claimed.scheduledAt;
    this.attempt = claimed.attempt;
    this.fencingToken = claimed.fencingToken;
  }

  /** Aborted when the delivery ends early: shutdown past `drainMs`, `maxRunMs`, a lost lease, a cancel. */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  /** Makes the lease last at least `ms` from now; see `TimeoutEvent.extendLease`. */
  extendLease(ms: number): Promise<number> {
    if (!this.extender) return Promise.reject(new LeaseLostError(errorMessages.deliveryEnded(this.topic, this.id, this.attempt)));
    return this.extender(this, ms);
  }

  /** Aborts the signal, if a handler asked for it. */
  abort(reason: Error): void {
    this.controller?.abort(reason);
    // A handler that reads the signal only after this point must still see it aborted.
    this.controller ??= abortedController(reason);
  }
}

function abortedController(reason: Error): AbortController {
  const controller = new AbortController();
  controller.abort(reason);
  return controller;
}
