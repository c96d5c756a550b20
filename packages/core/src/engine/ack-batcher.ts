import type { AckResult, SlotRef } from '../store/timeout-store.js';
import type { EngineContext } from './engine-context.js';
import { engineMessages } from './engine.messages.js';
import { redisRetryDelayMs } from '../support/retry-backoff.js';
import type { TimeoutDelivery } from './timeout-delivery.js';

/**
 * How an ack ended: accepted, refused (the token was stale), abandoned (Redis failed until the lease
 * ended), or forwarded (a slot migration moved the delivery: the worker acks it in the new slot).
 */
export type AckOutcome = 'accepted' | 'stale' | 'abandoned' | 'forwarded';

/** What the ack of one delivery came to: its outcome, and for `forwarded` the slot a migration moved it to. */
export interface AckSettlement {
  outcome: AckOutcome;
  forwardedTo?: number;
}

/** A delivery waiting for its ack, and how to tell its owner what the ack came to. */
interface PendingAck {
  delivery: TimeoutDelivery;
  settle(settlement: AckSettlement): void;
}

/**
 * How long a finished delivery may wait for others of its slot before its ack is sent. Acks are off
 * the lateness path (a lease lasts seconds), and at moderate rates this lingering turns about one
 * ack call per timeout into one per few timeouts: the round trip, not Redis, is what a timeout
 * costs the worker (docs/BENCHMARKS.md).
 */
export const ACK_LINGER_MS = 20;

/**
 * Acks the finished deliveries of one slot in batches: what finishes within `lingerMs` of the first
 * (or in one turn of the event loop when told not to linger) travels in one `ackMany`, and while a
 * call is out the next batch builds up, so under load there is one ack call per slot in flight and
 * acks cost a fraction of a command each. `add` returns what the delivery's ack came to; the owner
 * acts on it (events, a forward to follow).
 */
export class AckBatcher {
  private pending: PendingAck[] = [];
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  /** Whether the deliveries waiting now may linger (the last `add` said so and no `flushSoon` since). */
  private linger = false;
  private flushing = false;
  private failures = 0;

  constructor(
    private readonly context: EngineContext,
    private readonly slot: SlotRef,
    /** Longest wait of a finished delivery for others to share its ack call (a fraction of the lease). */
    private readonly lingerMs: number = ACK_LINGER_MS,
  ) {}

  /**
   * Queues a delivery whose handler returned; `linger` false sends it on the next turn of the event
   * loop. Resolves (never rejects) with what its ack came to.
   */
  add(delivery: TimeoutDelivery, linger: boolean): Promise<AckSettlement> {
    return new Promise((settle) => {
      this.pending.push({ delivery, settle });
      this.linger = linger;
      this.schedule(linger ? this.lingerMs : 0);
    });
  }

  /** Sends what waits now instead of at the end of its linger (shutdown, a caller waiting for idle). */
  flushSoon(): void {
    this.linger = false;
    if (this.pending.length === 0 || this.flushing) return;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.scheduled = false;
    }
    this.schedule(0);
  }

  /**
   * The slot's claim goes out now, on a store whose calls of one turn share a round trip
   * (`Deliveries.coalescesSlotCalls`): what waits is sent at once, so it travels with the claim
   * instead of in a call of its own at the end of its linger. Nothing happens while an ack call of
   * the slot is out (what waits goes when it is back, as always).
   */
  flushWithClaim(): void {
    if (this.pending.length === 0 || this.flushing) return;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.flush();
  }

  private schedule(delayMs: number): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    if (delayMs === 0) setImmediate(this.flush);
    else this.timer = setTimeout(this.flush, delayMs);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    this.timer = undefined;
    // A next-turn flush that `flushWithClaim` overtook: what waits goes when the call out is back (`done`).
    if (this.flushing || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.flushing = true;
    this.context.deliveries.ackMany(this.slot, batch.map(({ delivery }) => delivery)).then(
      (results) => {
        this.failures = 0;
        this.context.reportHealthy();
        for (let i = 0; i < batch.length; i++) this.settleOne(batch[i]!, results[i]!);
        this.done(this.linger ? this.lingerMs : 0);
      },
      (error: unknown) => {
        this.failures++;
        this.context.reportError(error, 'ack', this.slot.topic);
        // Keep retrying while the lease holds; past it the timeout belongs to the next claim and
        // an ack would be refused anyway (the handler will run again: at-least-once).
        const now = this.context.clock.now();
        for (const waiting of batch) {
          if (this.context.storeOpen && now < waiting.delivery.leaseExpiresAt) this.pending.push(waiting);
          else waiting.settle({ outcome: 'abandoned' });
        }
        this.done(redisRetryDelayMs(this.failures));
      },
    );
  };

  private settleOne({ delivery, settle }: PendingAck, result: AckResult): void {
    if (typeof result === 'object') {
      settle({ outcome: 'forwarded', forwardedTo: result.forwardedTo });
      return;
    }
    const accepted = result === 'acked';
    // A delivery a cancel notice reached is refused because of that cancel: nothing to warn of.
    if (!accepted && !delivery.cancelled) {
      this.context.logger?.warn(engineMessages.stale(delivery.topic, delivery.id, delivery.attempt, 'ack'), {
        topic: delivery.topic,
        id: delivery.id,
        attempt: delivery.attempt,
      });
    }
    settle({ outcome: accepted ? 'accepted' : 'stale' });
  }

  private done(delayMs = 0): void {
    this.flushing = false;
    if (this.pending.length > 0) this.schedule(delayMs);
  }
}
