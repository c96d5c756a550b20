import type { AckResult, SlotRef } from '../store/timeout-store.js';
import type { EngineContext } from './engine-context.js';
import { engineMessages } from './engine.messages.js';
import { redisRetryDelayMs } from './retry-backoff.js';
import type { TimeoutDelivery } from './timeout-delivery.js';

/**
 * How an ack ended: accepted, refused (the token was stale), abandoned (Redis failed until the lease
 * ended), or forwarded (a slot migration moved the delivery: the worker acks it in the new slot).
 */
export type AckOutcome = 'accepted' | 'stale' | 'abandoned' | 'forwarded';

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
 * acks cost a fraction of a command each.
 */
export class AckBatcher {
  private pending: TimeoutDelivery[] = [];
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  /** Whether the deliveries waiting now may linger (the last `add` said so and no `flushSoon` since). */
  private linger = false;
  private flushing = false;
  private failures = 0;

  constructor(
    private readonly context: EngineContext,
    private readonly slot: SlotRef,
    /** Called once per delivery when its ack is settled (`forwardedTo`: the slot a migration moved it to). */
    private readonly settle: (delivery: TimeoutDelivery, outcome: AckOutcome, forwardedTo?: number) => void,
    /** Longest wait of a finished delivery for others to share its ack call (a fraction of the lease). */
    private readonly lingerMs: number = ACK_LINGER_MS,
  ) {}

  /** Queues a delivery whose handler returned; `linger` false sends it on the next turn of the event loop. */
  add(delivery: TimeoutDelivery, linger: boolean): void {
    this.pending.push(delivery);
    this.linger = linger;
    this.schedule(linger ? this.lingerMs : 0);
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

  private schedule(delayMs: number): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    if (delayMs === 0) setImmediate(this.flush);
    else this.timer = setTimeout(this.flush, delayMs);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.flushing = true;
    this.context.store.ackMany(this.slot, batch).then(
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
        for (const delivery of batch) {
          if (this.context.storeOpen && now < delivery.leaseExpiresAt) this.pending.push(delivery);
          else this.settle(delivery, 'abandoned');
        }
        this.done(redisRetryDelayMs(this.failures));
      },
    );
  };

  private settleOne(delivery: TimeoutDelivery, result: AckResult): void {
    if (typeof result === 'object') {
      this.settle(delivery, 'forwarded', result.forwardedTo);
      return;
    }
    const accepted = result === 'acked';
    if (!accepted) {
      this.context.logger?.warn(engineMessages.stale(delivery.topic, delivery.id, delivery.attempt, 'ack'), {
        topic: delivery.topic,
        id: delivery.id,
        attempt: delivery.attempt,
      });
    }
    this.settle(delivery, accepted ? 'accepted' : 'stale');
  }

  private done(delayMs = 0): void {
    this.flushing = false;
    if (this.pending.length > 0) this.schedule(delayMs);
  }
}
