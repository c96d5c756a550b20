import type { ClaimedTimeout } from '../store/timeout-store.js';
import type { TimeoutEvent } from '../types.js';

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

  /** Aborted when this instance gives the timeout up (shutdown past `drainMs`). */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
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
