import type { ClaimedTimeout, ClaimResult, SlotRef } from '../store/timeout-store.js';
import type { ResolvedTopicOptions, TimeoutEvent, TimeoutHandler } from '../types.js';
import { parseStoredPayload } from '../validation/safe-json.js';
import { ACK_LINGER_MS, AckBatcher, type AckOutcome } from './ack-batcher.js';
import type { EngineContext } from './engine-context.js';
import { engineMessages } from './engine.messages.js';
import { retryDelayMs } from './retry-backoff.js';
import { SlotPoller } from './slot-poller.js';
import { TimeoutDelivery } from './timeout-delivery.js';
import { toError } from './to-error.js';

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
export class TopicWorker {
  /** Whether the pollers run (between `start` and `halt`). */
  active = false;
  readonly pollers: readonly SlotPoller[];
  private readonly ackBatchers: readonly AckBatcher[];
  private readonly running = new Set<TimeoutDelivery>();
  private readonly parked: SlotPoller[] = [];
  private readonly minClaim: number;
  private inFlightCount = 0;
  private reserved = 0;
  /** Deliveries not yet settled: running, or waiting for their ack or fail to be recorded. */
  private outstanding = 0;
  private idleWaiters: (() => void)[] = [];
  private drainWaiters: (() => void)[] = [];

  constructor(
    private readonly context: EngineContext,
    readonly topic: string,
    readonly options: ResolvedTopicOptions,
    private readonly handler: TimeoutHandler<unknown>,
    /** One `SlotRef` per slot, index = slot (shared with the engine so the store sees the same objects). */
    private readonly refs: readonly SlotRef[],
  ) {
    this.pollers = refs.map((ref) => new SlotPoller(this, context, ref));
    const lingerMs = Math.min(ACK_LINGER_MS, Math.floor(options.leaseMs / 10));
    this.ackBatchers = refs.map((ref) => new AckBatcher(context, ref, this.settleAck, lingerMs));
    this.minClaim = Math.min(options.batchSize, Math.max(1, Math.floor(options.concurrency / 4)));
  }

  /** Handlers of this topic running now. */
  get inFlight(): number {
    return this.inFlightCount;
  }

  /** Starts every slot poller. */
  start(): void {
    this.active = true;
    for (const poller of this.pollers) poller.start();
  }

  /** Stops claiming. Running handlers go on. */
  halt(): void {
    this.active = false;
    this.parked.length = 0;
    for (const poller of this.pollers) poller.halt();
    for (const batcher of this.ackBatchers) batcher.flushSoon();
  }

  /** Settles when no poller has a claim out any more. */
  async pollersSettled(): Promise<void> {
    await Promise.all(this.pollers.map((poller) => poller.settled));
  }

  /**
   * How many timeouts `poller` may claim now (at most its `wanted`, itself at most `batchSize`),
   * reserved until `unreserve`. 0 parks the poller until capacity frees.
   */
  reserve(poller: SlotPoller): number {
    const { wanted } = poller;
    const free = this.freeCapacity(wanted);
    if (free === 0) {
      if (!this.parked.includes(poller)) this.parked.push(poller);
      return 0;
    }
    const limit = Math.min(wanted, free);
    this.reserved += limit;
    return limit;
  }

  /** Ends a reservation made by `reserve` (the claim came back and was dispatched, or failed). */
  unreserve(limit: number): void {
    this.reserved -= limit;
    this.resumeParked();
  }

  /** Wakes the slot that a schedule landed in (store wake-up). */
  wake(slot: number, dueAt: number): void {
    this.pollers[slot]?.wake(dueAt);
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

  /** Starts the handler for every timeout of a claim. */
  dispatch(slot: number, result: ClaimResult): void {
    const leaseExpiresAt = result.now + this.options.leaseMs;
    for (const claimed of result.claimed) {
      const parsed = parseStoredPayload(claimed.payload);
      const delivery = new TimeoutDelivery<unknown>(this.topic, slot, claimed, parsed.ok ? parsed.value : null);
      delivery.leaseExpiresAt = leaseExpiresAt;
      this.outstanding++;
      if (parsed.ok) this.runHandler(delivery);
      else this.recordFailure(delivery, new Error(engineMessages.badStoredPayload(parsed.error.message)), true);
    }
  }

  /**
   * Claims and runs everything due now in one slot, batch after batch, waiting for each batch's
   * handlers and acks (`fireDue`). Returns how many were run.
   */
  async fireDueSlot(slot: number): Promise<number> {
    const ref = this.refs[slot]!;
    let count = 0;
    for (;;) {
      const sentAt = performance.now();
      const result = await this.context.store.claim(ref, this.options.batchSize, this.options.leaseMs);
      this.context.clock.sample(result.now, sentAt, performance.now());
      this.dispatch(slot, result);
      count += result.claimed.length;
      await this.idle();
      if (result.claimed.length < this.options.batchSize) return count;
    }
  }

  /** Hands back, as due now, timeouts claimed after shutdown began (their handlers never ran). */
  async releaseClaimed(ref: SlotRef, claimed: readonly ClaimedTimeout[]): Promise<void> {
    if (claimed.length === 0) return;
    try {
      this.reportReleased(await this.context.store.release(ref, claimed));
    } catch (error) {
      this.context.reportError(error, 'release', this.topic);
    }
  }

  /** Waits until no handler runs, or `timeoutMs` passed. True when none runs. */
  async waitForHandlers(timeoutMs: number): Promise<boolean> {
    if (this.inFlightCount === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      new Promise<boolean>((resolve) => this.drainWaiters.push(() => resolve(true))),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    return drained;
  }

  /**
   * Shutdown past `drainMs`: aborts the signal of every handler still running and hands its
   * timeout back as due now, without spending an attempt. Whatever those handlers do next is
   * neither acked nor recorded as a failure.
   */
  async releaseRunning(reason: Error): Promise<void> {
    if (this.running.size === 0) return;
    const bySlot = new Map<number, TimeoutDelivery[]>();
    for (const delivery of this.running) {
      delivery.released = true;
      delivery.abort(reason);
      const group = bySlot.get(delivery.slot);
      if (group) group.push(delivery);
      else bySlot.set(delivery.slot, [delivery]);
    }
    let released = 0;
    await Promise.all(
      [...bySlot].map(async ([slot, deliveries]) => {
        try {
          released += await this.context.store.release(this.refs[slot]!, deliveries);
        } catch (error) {
          this.context.reportError(error, 'release', this.topic);
        }
      }),
    );
    this.reportReleased(released);
  }

  /** Settles when every delivery started so far is settled (acked, failed, or released). */
  idle(): Promise<void> {
    if (this.outstanding === 0) return Promise.resolve();
    // Somebody waits: acks go out now rather than after their linger.
    for (const batcher of this.ackBatchers) batcher.flushSoon();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private runHandler(delivery: TimeoutDelivery<unknown>): void {
    this.inFlightCount++;
    this.running.add(delivery);
    delivery.startedAt = performance.now();
    delivery.latenessMs = Math.max(0, Math.round(this.context.clock.now() - delivery.dueAt));
    const handler = this.handler;
    let outcome: unknown;
    try {
      outcome = handler(delivery as TimeoutEvent<unknown>);
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
    this.finishRunning(delivery);
    if (delivery.released) this.settle();
    // Linger only while claiming goes on and nobody waits for this topic to be idle.
    else this.ackBatchers[delivery.slot]!.add(delivery, this.active && this.idleWaiters.length === 0);
  }

  private onHandlerFailed(delivery: TimeoutDelivery<unknown>, thrown: unknown): void {
    this.finishRunning(delivery);
    if (delivery.released) this.settle();
    else this.recordFailure(delivery, toError(thrown), false);
  }

  private finishRunning(delivery: TimeoutDelivery<unknown>): void {
    this.inFlightCount--;
    this.running.delete(delivery);
    delivery.durationMs = performance.now() - delivery.startedAt;
    if (this.inFlightCount === 0 && this.drainWaiters.length > 0) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const resolve of waiters) resolve();
    }
    this.resumeParked();
  }

  /** A handler threw (or the payload could not be read: `final`, straight to the dead letters). */
  private recordFailure(delivery: TimeoutDelivery<unknown>, error: Error, final: boolean): void {
    const { topic, id, attempt, fencingToken } = delivery;
    const { context, options } = this;
    context.store
      .fail(this.refs[delivery.slot]!, id, fencingToken, {
        error: error.message || error.name,
        retryDelayMs: retryDelayMs(attempt, options.backoff),
        maxAttempts: final ? attempt : options.maxAttempts,
      })
      .then(
        (result) => {
          context.reportHealthy();
          const logContext = { topic, id, attempt, error: error.message };
          if (result.outcome === 'retried') {
            context.logger?.warn(engineMessages.handlerFailed(topic, id, attempt, result.retryAt), logContext);
            context.events.emit('retried', { topic, id, attempt, retryAt: result.retryAt, error });
          } else if (result.outcome === 'dead') {
            context.logger?.error(engineMessages.deadLettered(topic, id, attempt), logContext);
            context.events.emit('dead', { topic, id, attempts: attempt, error });
          } else {
            context.logger?.warn(engineMessages.stale(topic, id, attempt, 'failure record'), logContext);
            context.events.emit('stale', { topic, id, attempt, fencingToken });
          }
        },
        // Unrecorded, the failure still counts: the lease runs out and the next claim spends an attempt.
        (storeError: unknown) => context.reportError(storeError, 'fail', topic),
      )
      .finally(() => this.settle());
  }

  private readonly settleAck = (delivery: TimeoutDelivery, outcome: AckOutcome): void => {
    const { events } = this.context;
    if (outcome === 'accepted') {
      if (events.has('fired')) {
        events.emit('fired', {
          topic: delivery.topic,
          id: delivery.id,
          attempt: delivery.attempt,
          dueAt: delivery.dueAt,
          latenessMs: delivery.latenessMs,
          durationMs: delivery.durationMs,
        });
      }
    } else if (outcome === 'stale') {
      events.emit('stale', { topic: delivery.topic, id: delivery.id, attempt: delivery.attempt, fencingToken: delivery.fencingToken });
    }
    this.settle();
  };

  private settle(): void {
    this.outstanding--;
    if (this.outstanding === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** Capacity a claim asking for `wanted` may reserve now; 0 parks it. */
  private freeCapacity(wanted: number): number {
    const free = this.options.concurrency - this.inFlightCount - this.reserved;
    if (free <= 0) return 0;
    // A poller waits for a useful batch, unless nothing else is running or being claimed.
    return free >= Math.min(wanted, this.minClaim) || this.inFlightCount + this.reserved === 0 ? free : 0;
  }

  private resumeParked(): void {
    while (this.parked.length > 0 && this.active && this.freeCapacity(this.parked[0]!.wanted) > 0) this.parked.shift()!.runNow();
  }

  private reportReleased(count: number): void {
    if (count === 0) return;
    this.context.logger?.log(engineMessages.released(this.topic, count), { topic: this.topic, count });
    this.context.events.emit('released', { topic: this.topic, count });
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
