import type { SlotRef } from '../store/timeout-store.js';
import type { EngineContext } from './engine-context.js';
import { engineMessages } from './engine.messages.js';
import { redisRetryDelayMs } from './retry-backoff.js';
import type { TimeoutDelivery } from './timeout-delivery.js';

/** How an ack ended: accepted, refused (the token was stale), or abandoned (Redis failed until the lease ended). */
export type AckOutcome = 'accepted' | 'stale' | 'abandoned';

/**
 * Acks the finished deliveries of one slot in batches: everything that finished in one turn of the
 * event loop travels in one `ackMany`, and while a call is out the next batch builds up, so under
 * load there is one ack call per slot in flight and acks cost a fraction of a command each.
 */
export class AckBatcher {
  private pending: TimeoutDelivery[] = [];
  private scheduled = false;
  private flushing = false;
  private failures = 0;

  constructor(
    private readonly context: EngineContext,
    private readonly slot: SlotRef,
    /** Called once per delivery when its ack is settled. */
    private readonly settle: (delivery: TimeoutDelivery, outcome: AckOutcome) => void,
  ) {}

  /** Queues a delivery whose handler returned. */
  add(delivery: TimeoutDelivery): void {
    this.pending.push(delivery);
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    if (delayMs === 0) setImmediate(this.flush);
    else setTimeout(this.flush, delayMs);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.flushing = true;
    this.context.store.ackMany(this.slot, batch).then(
      (accepted) => {
        this.failures = 0;
        this.context.reportHealthy();
        for (let i = 0; i < batch.length; i++) this.settleOne(batch[i]!, accepted[i] === true);
        this.done();
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

  private settleOne(delivery: TimeoutDelivery, accepted: boolean): void {
    if (!accepted) {
      this.context.logger?.warn(engineMessages.stale(delivery.topic, delivery.id, delivery.attempt, 'ack'), {
        topic: delivery.topic,
        id: delivery.id,
        attempt: delivery.attempt,
      });
    }
    this.settle(delivery, accepted ? 'accepted' : 'stale');
  }

  private done(retryDelayMs = 0): void {
    this.flushing = false;
    if (this.pending.length > 0) this.schedule(retryDelayMs);
  }
}
