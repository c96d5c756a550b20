import type { ClaimedTimeout, ClaimResult, LeaseExpiryPolicy, SlotRateLimit, SlotRef } from '../store/timeout-store.js';
import type { ResolvedTopicOptions, TimeoutEvent, TimeoutHandler } from '../types.js';
import { readPayloadText } from '../validation/safe-json.js';
import { splitCarried } from './carried-context.js';
import { ACK_LINGER_MS, AckBatcher } from './ack-batcher.js';
import type { EngineContext } from './engine-context.js';
import { engineMessages } from './engine.messages.js';
import { DeliveryOutcomes } from './delivery-outcomes.js';
import { ClaimCapacity } from './claim-capacity.js';
import { type ClaimSink, SlotPoller, takenCount } from './slot-poller.js';
import { TimeoutDelivery } from './timeout-delivery.js';
import { LeaseRenewer } from './lease-renewer.js';
import { toError } from '../support/to-error.js';
import { TimeoutCancelledError } from '../errors/timeout-cancelled.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import { settledWithin } from '../support/settled-within.js';

/**
 * Runs the handler of one topic in this instance: owns the topic's slot pollers, bounds how many
 * handlers run at once (`concurrency`), acks in batches per slot, records failures for retry or
 * dead-lettering, and on shutdown hands unfinished timeouts back to the store.
 *
 * Pollers claim only what the topic can start now (`reserve`), so nothing claimed sits waiting for
 * a free handler while its lease runs down. When capacity runs out a poller parks, and it is
 * resumed once a useful batch can be claimed again (a quarter of `concurrency`, or the batch size
 * when smaller), not for every single handler that finishes.
 *
 * A claim reserves what it asks for until it comes back. A poller whose last claim did not fill its
 * batch (a trickle: most claims at steady rates bring back a timeout or two) asks for a small batch
 * (`SlotPoller`), so that slots waking together do not park one another behind reservations they
 * will not use; a full batch means more is due, and the next claim asks for `batchSize` again.
 */
export class TopicWorker implements ClaimSink {
  /** Whether the pollers run (between `start` and `halt`). */
  active = false;
  /** One poller per slot this instance polls (index = slot); more or fewer when a migration changes the topic's slots. */
  readonly pollers: SlotPoller[] = [];
  /** Pollers of slots no longer polled, until their last claim has come back. */
  private retired: SlotPoller[] = [];
  /** One per slot ever polled: deliveries of a slot that is no longer polled still need their acks. */
  private readonly ackBatchers: AckBatcher[] = [];
  private readonly lingerMs: number;
  /** Deliveries whose handler runs now. */
  private readonly running = new Set<TimeoutDelivery>();
  /** Deliveries whose lease this worker holds and renews: running, or done with the ack or failure not yet recorded. */
  private readonly leased = new Set<TimeoutDelivery>();
  /** Bounds the handlers running and the claims out to `concurrency`; parks pollers that must wait. */
  private readonly capacity: ClaimCapacity;
  private readonly expiry: LeaseExpiryPolicy;
  /** Deliveries not yet settled: running, or waiting for their ack or fail to be recorded. */
  private outstanding = 0;
  private idleWaiters: (() => void)[] = [];
  private drainWaiters: (() => void)[] = [];
  /** Renews the leases of handlers that run long, and finds those past `maxRunMs`. */
  private readonly renewer: LeaseRenewer;
  /** Runs the renewer's ticks while this worker holds any lease (see `leased`). */
  private renewTimer: NodeJS.Timeout | undefined;
  /** Records in the store how deliveries ended, and tells it as events and log lines. */
  private readonly outcomes: DeliveryOutcomes;

  constructor(
    private readonly context: EngineContext,
    readonly topic: string,
    readonly options: ResolvedTopicOptions,
    private readonly handler: TimeoutHandler<unknown>,
  ) {
    this.lingerMs = Math.min(ACK_LINGER_MS, Math.floor(options.leaseMs / 10));
    this.capacity = new ClaimCapacity(options.concurrency, options.batchSize, () => this.active);
    this.outcomes = new DeliveryOutcomes(context, topic, options);
    this.resize();
    this.expiry = { maxAttempts: options.maxAttempts, backoff: options.backoff };
    const rate = options.rateLimit;
    this.slotRate = rate && { perMs: rate.perSecond / 1000 / options.slots, burst: Math.max(1, rate.burst / options.slots) };
    this.renewer = new LeaseRenewer(context, topic, options.leaseMs, options.maxRunMs, this.leased);
  }

  /** Handlers of this topic running now. */
  get inFlight(): number {
    return this.capacity.inFlight;
  }

  /**
   * Polls as many slots as the topic's layout holds now (`TopicLayouts.polledSlots`): new slots get
   * a poller (started when the worker runs), slots no longer used lose theirs.
   */
  resize(): void {
    const count = this.context.layouts.polledSlots(this.topic);
    while (this.ackBatchers.length < count) {
      const ref = this.ref(this.ackBatchers.length);
      this.ackBatchers.push(new AckBatcher(this.context, ref, this.lingerMs));
    }
    while (this.pollers.length < count) {
      const poller = new SlotPoller(this, this.context, this.ref(this.pollers.length), this.capacity);
      this.pollers.push(poller);
      if (this.active) poller.start();
    }
    while (this.pollers.length > count) {
      const poller = this.pollers.pop()!;
      poller.halt();
      this.retired.push(poller);
      this.capacity.unpark(poller);
    }
  }

  /** Starts every slot poller. */
  start(): void {
    this.active = true;
    for (const poller of this.pollers) poller.start();
  }

  /** Stops claiming. Running handlers go on. */
  halt(): void {
    this.active = false;
    this.capacity.unparkAll();
    for (const poller of this.pollers) poller.halt();
    for (const batcher of this.ackBatchers) batcher.flushSoon();
  }

  /** Settles when no poller has a claim out any more. */
  async pollersSettled(): Promise<void> {
    await Promise.all([...this.pollers, ...this.retired].map((poller) => poller.settled));
  }

  /**
   * A claim of `slot` is about to go out: on a store that gathers the calls of one turn into one
   * round trip, the slot's finished acks go with it (`AckBatcher.flushWithClaim`).
   */
  beforeClaim(slot: number): void {
    if (this.context.deliveries.coalescesSlotCalls === true) this.ackBatchers[slot]?.flushWithClaim();
  }

  /** Wakes the slot that a schedule landed in (store wake-up). */
  wake(slot: number, dueAt: number): void {
    this.pollers[slot]?.wake(dueAt);
  }

  /**
   * A cancel removed the timeout `id` while a delivery of it held `fencingToken` (the store's
   * notice, from any instance): aborts the signal of that delivery, if it runs here, with
   * `TimeoutCancelledError`. The store refuses its ack and failure record from then on, so none is
   * sent: the delivery is settled when its handler ends. A delivery whose handler had already
   * ended, its ack or failure record still on the way, is marked too: the store refuses that
   * record, and the refusal is the cancel's, not a stale delivery's (no `stale` event). Without
   * `fencingToken` (this instance's own cancel, whose answer names no token) the delivery of `id`
   * with the highest token is the one: tokens of an id only grow, so an older one still held here
   * was already stale. Returns whether a delivery here matched.
   */
  cancelRunning(id: string, fencingToken?: number): boolean {
    let match: TimeoutDelivery | undefined;
    // `leased`: running, or ended with the ack or failure record not yet answered.
    for (const delivery of this.leased) {
      if (delivery.id !== id || delivery.released) continue;
      if (fencingToken === undefined ? match === undefined || delivery.fencingToken > match.fencingToken : delivery.fencingToken === fencingToken) match = delivery;
    }
    if (!match) return false;
    if (!match.cancelled) {
      match.cancelled = true;
      // A handler that ended has nothing left to stop.
      if (this.running.has(match)) match.abort(new TimeoutCancelledError(errorMessages.cancelledWhileRunning(this.topic, id, match.attempt)));
    }
    return true;
  }

  /** Claims every slot now (after a reconnect of the wake-up subscription). */
  sweepNow(): void {
    for (const poller of this.pollers) poller.sweepNow();
  }

  /** Time since the poller that is most behind last finished a claim. */
  maxPollerIdleMs(now: number): number {
    let idle = 0;
    for (const poller of this.pollers) idle = Math.max(idle, poller.idleMs(now));
    return idle;
  }

  /** Slots whose last claim found the topic paused. */
  private readonly pausedSlots = new Set<number>();

  /** Whether the last claim of any slot found the topic paused. */
  get paused(): boolean {
    return this.pausedSlots.size > 0;
  }

  /** Reports what a claim retried or dead-lettered instead of claiming, then starts the handler for every timeout it claimed. */
  dispatch(slot: number, result: ClaimResult): void {
    if (result.paused) this.pausedSlots.add(slot);
    else this.pausedSlots.delete(slot);
    if (result.incidents.length > 0) this.outcomes.reportIncidents(result.incidents);
    const leaseExpiresAt = result.now + this.options.leaseMs;
    for (const claimed of result.claimed) {
      const { carried, payload } = splitCarried(claimed.payload);
      const read = readPayloadText(payload, this.options.codec);
      const delivery = new TimeoutDelivery<unknown>(this.topic, slot, claimed, read.ok ? read.value : null);
      delivery.leaseExpiresAt = leaseExpiresAt;
      delivery.lateByMs = Math.max(0, result.now - claimed.dueAt);
      delivery.carried = carried;
      this.outstanding++;
      if (read.ok) this.runHandler(delivery);
      else this.recordFailure(delivery, new Error(read.encoded ? engineMessages.undecodableStoredPayload(read.reason) : engineMessages.badStoredPayload(read.reason)), true);
    }
  }

  /** The policy the store applies to this topic's expired leases. */
  get leaseExpiry(): LeaseExpiryPolicy {
    return this.expiry;
  }

  /** The topic's rate limit split evenly over its slots (each at least 1 token of burst), or undefined. */
  readonly slotRate: SlotRateLimit | undefined;

  /**
   * Claims and runs everything due now in one slot, batch after batch, waiting for each batch's
   * handlers and acks (`fireDue`). Returns how many were run.
   */
  async fireDueSlot(slot: number): Promise<number> {
    const ref = this.ref(slot);
    let count = 0;
    for (;;) {
      const sentAt = performance.now();
      const result = await this.context.deliveries.claim(ref, this.options.batchSize, this.options.leaseMs, this.expiry, this.options.late, this.slotRate);
      this.context.clock.sample(result.now, sentAt, performance.now());
      this.dispatch(slot, result);
      count += result.claimed.length;
      await this.idle();
      if (takenCount(result) < this.options.batchSize) return count;
    }
  }

  /** Hands back, as due now, timeouts claimed after shutdown began (their handlers never ran). */
  async releaseClaimed(ref: SlotRef, claimed: readonly ClaimedTimeout[]): Promise<void> {
    if (claimed.length === 0) return;
    try {
      this.outcomes.reportReleased(await this.outcomes.release(ref, claimed));
    } catch (error) {
      this.context.reportError(error, 'release', this.topic);
    }
  }

  /** Waits until no handler runs, or `timeoutMs` passed. True when none runs. */
  async waitForHandlers(timeoutMs: number): Promise<boolean> {
    if (this.capacity.inFlight === 0) return true;
    return settledWithin(new Promise<void>((resolve) => this.drainWaiters.push(resolve)), timeoutMs);
  }

  /**
   * Shutdown past `drainMs`: aborts the signal of every handler still running and hands its
   * timeout back as due now, without spending an attempt. Whatever those handlers do next is
   * neither acked nor recorded as a failure, so their deliveries are settled here: `idle` does not
   * wait for a handler that ignores its signal.
   */
  async releaseRunning(reason: Error): Promise<void> {
    if (this.running.size === 0) return;
    const bySlot = new Map<number, TimeoutDelivery[]>();
    for (const delivery of this.running) {
      delivery.released = true;
      delivery.abort(reason);
      this.endLease(delivery);
      const group = bySlot.get(delivery.slot);
      if (group) group.push(delivery);
      else bySlot.set(delivery.slot, [delivery]);
    }
    for (let i = 0; i < this.running.size; i++) this.settle();
    let released = 0;
    await Promise.all(
      [...bySlot].map(async ([slot, deliveries]) => {
        try {
          // Added once the call is done: `released += await ...` would add to the count read before it.
          const count = await this.outcomes.release(this.ref(slot), deliveries);
          released += count;
        } catch (error) {
          this.context.reportError(error, 'release', this.topic);
        }
      }),
    );
    this.outcomes.reportReleased(released);
  }

  /** Settles when every delivery started so far is settled (acked, failed, or released). */
  idle(): Promise<void> {
    if (this.outstanding === 0) return Promise.resolve();
    // Somebody waits: acks go out now rather than after their linger.
    for (const batcher of this.ackBatchers) batcher.flushSoon();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private runHandler(delivery: TimeoutDelivery<unknown>): void {
    this.capacity.started();
    this.running.add(delivery);
    this.leased.add(delivery);
    delivery.startedAt = performance.now();
    this.renewer.track(delivery);
    if (this.renewTimer === undefined) {
      this.renewTimer = setInterval(this.renewLeases, this.renewer.tickMs);
      this.renewTimer.unref();
    }
    delivery.latenessMs = Math.max(0, Math.round(this.context.clock.now() - delivery.dueAt));
    const handler = this.handler;
    const { interceptors } = this.context;
    let outcome: unknown;
    try {
      if (interceptors.length === 0) {
        outcome = handler(delivery as TimeoutEvent<unknown>);
      } else {
        // The first interceptor added is the outermost one.
        let run = () => handler(delivery as TimeoutEvent<unknown>);
        for (let i = interceptors.length - 1; i >= 0; i--) {
          const { handling } = interceptors[i]!;
          const inner = run;
          if (handling) run = () => handling(delivery, delivery.carried, inner);
        }
        outcome = run();
      }
    } catch (error) {
      this.onHandlerFailed(delivery, error);
      return;
    }
    if (isThenable(outcome)) {
      outcome.then(
        () => this.onHandlerReturned(delivery),
        (error: unknown) => this.onHandlerFailed(delivery, error),
      );
    } else {
      this.onHandlerReturned(delivery);
    }
  }

  private onHandlerReturned(delivery: TimeoutDelivery<unknown>): void {
    // Past maxRunMs the delivery was ended (and its failure recorded) already.
    if (delivery.timedOut) return;
    this.finishRunning(delivery);
    // A released delivery was settled when it was released.
    if (delivery.released) return;
    // A cancelled one is gone from the store: an ack would be refused as stale.
    if (delivery.cancelled) {
      this.settleCancelled(delivery);
      return;
    }
    // Linger only while claiming goes on and nobody waits for this topic to be idle.
    const acked = delivery.next
      ? this.outcomes.ackNext(delivery, delivery.next)
      : this.ackBatchers[delivery.slot]!.add(delivery, this.active && this.idleWaiters.length === 0);
    this.settleAfter(acked.then((settlement) => this.outcomes.settleAck(delivery, settlement)), 'ack', delivery);
  }

  private onHandlerFailed(delivery: TimeoutDelivery<unknown>, thrown: unknown): void {
    if (delivery.timedOut) return;
    this.finishRunning(delivery);
    if (delivery.released) return;
    // A cancelled delivery is gone from the store: nothing to retry or dead-letter (the record would be refused).
    if (delivery.cancelled) this.settleCancelled(delivery);
    else this.recordFailure(delivery, toError(thrown, engineMessages.handlerThrewNonError), false);
  }

  /**
   * A handler ran past `maxRunMs`: its signal is aborted, its place among the running handlers is
   * freed and the attempt is recorded as failed now; what the handler does next is ignored.
   */
  private onHandlerTimedOut(delivery: TimeoutDelivery<unknown>, error: Error): void {
    delivery.timedOut = true;
    delivery.abort(error);
    this.finishRunning(delivery);
    if (delivery.cancelled) this.settleCancelled(delivery);
    else this.recordFailure(delivery, error, false);
  }

  /** Records a failed delivery (`DeliveryOutcomes.recordFailure`), then counts it settled. */
  private recordFailure(delivery: TimeoutDelivery<unknown>, error: Error, final: boolean): void {
    this.settleAfter(this.outcomes.recordFailure(delivery, error, final), 'fail', delivery);
  }

  /**
   * Counts a delivery settled once recording how it ended is done, however that ends: a recording
   * that failed (none should: they resolve with what happened) is reported, not left unhandled,
   * and never keeps `idle` and `stop` waiting.
   */
  private settleAfter(recording: Promise<void>, operation: string, delivery: TimeoutDelivery<unknown>): void {
    void recording
      .finally(() => {
        this.endLease(delivery);
        this.settle();
      })
      .catch((error: unknown) => this.context.reportError(error, operation, this.topic));
  }

  /** A cancelled delivery's handler ended: there is nothing to record (the timeout is gone), nor a lease to keep. */
  private settleCancelled(delivery: TimeoutDelivery<unknown>): void {
    this.endLease(delivery);
    this.settle();
  }

  /** The delivery's ack, failure or release is recorded (or handed off): its lease is no longer renewed. */
  private endLease(delivery: TimeoutDelivery<unknown>): void {
    this.leased.delete(delivery);
    this.renewer.untrack(delivery);
    if (this.leased.size === 0 && this.renewTimer !== undefined) {
      clearInterval(this.renewTimer);
      this.renewTimer = undefined;
    }
  }

  private finishRunning(delivery: TimeoutDelivery<unknown>): void {
    this.capacity.finished();
    this.running.delete(delivery);
    delivery.handlerDone = true;
    // `extendLease` is the handler's: it ends with it (the lease itself is kept until `endLease`).
    delivery.extender = undefined;
    delivery.durationMs = performance.now() - delivery.startedAt;
    if (this.capacity.inFlight === 0 && this.drainWaiters.length > 0) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const resolve of waiters) resolve();
    }
    this.capacity.resumeParked();
  }

  /** One tick of the renewer; ends the deliveries it found past `maxRunMs`. */
  private readonly renewLeases = (): void => {
    for (const { delivery, error } of this.renewer.tick()) this.onHandlerTimedOut(delivery, error);
  };

  /** The reference of one slot of this topic (the same object every time). */
  private ref(slot: number): SlotRef {
    return this.context.layouts.slotRef(this.topic, slot);
  }

  /** One delivery is settled (acked, failed, or released). */
  private readonly settle = (): void => {
    this.outstanding--;
    if (this.outstanding === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
