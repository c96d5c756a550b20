import type { AckEntry, ClaimIncident, SlotRef } from '../store/timeout-store.js';
import type { ResolvedTopicOptions } from '../types.js';
import type { AckOutcome } from './ack-batcher.js';
import type { EngineContext } from './engine-context.js';
import { engineMessages } from './engine.messages.js';
import { retryDelayMs } from './retry-backoff.js';
import type { TimeoutDelivery } from './timeout-delivery.js';

/** Most slots one ack, fail or release follows after slot migrations moved its delivery (one per migration). */
const MAX_FORWARDS = 4;

/**
 * How the deliveries of one topic end, as the store records it and as the engine tells it: the
 * incidents a claim reports (expired leases, unreadable entries), failures recorded for retry or
 * dead-lettering, acks settled into `fired` / `stale` events, and releases at shutdown. A slot
 * migration may have moved a delivery while its handler ran: its ack, fail or release follows
 * the forward to the new slot (at most `MAX_FORWARDS` hops).
 *
 * Every delivery is settled exactly once (`settle`), whatever its outcome.
 */
export class DeliveryOutcomes {
  constructor(
    private readonly context: EngineContext,
    private readonly topic: string,
    private readonly options: ResolvedTopicOptions,
    /** The reference of one slot of the topic. */
    private readonly ref: (slot: number) => SlotRef,
    /** Marks one delivery settled (acked, failed, or released). */
    private readonly settle: () => void,
  ) {}

  /** Emits the event (and logs the line) of a timeout a claim retried or dead-lettered itself. */
  reportIncident(incident: ClaimIncident): void {
    const { topic } = this;
    const { events, logger } = this.context;
    const { id, attempts, error: text } = incident;
    const error = new Error(text);
    const logContext = { topic, id, attempt: attempts, error: text };
    if (incident.kind === 'lease_retried') {
      logger?.warn(engineMessages.leaseExpired(topic, id, attempts, incident.at), logContext);
      events.emit('retried', { topic, id, attempt: attempts, retryAt: incident.at, error, reason: 'lease_expired' });
      return;
    }
    const reason = incident.kind === 'lease_dead' ? 'lease_expired' : incident.kind;
    logger?.error(engineMessages.deadByStore(topic, id, reason, text), logContext);
    events.emit('dead', { topic, id, attempts, error, reason });
  }

  /** A handler threw (or the payload could not be read: `final`, straight to the dead letters). */
  recordFailure(delivery: TimeoutDelivery<unknown>, error: Error, final: boolean): void {
    const { topic, id, attempt, fencingToken } = delivery;
    const { context, options } = this;
    const failure = {
      error: error.message || error.name,
      retryDelayMs: retryDelayMs(attempt, options.backoff),
      maxAttempts: final ? attempt : options.maxAttempts,
    };
    context.store
      .fail(this.ref(delivery.slot), id, fencingToken, failure)
      // A slot migration moved the delivery: the failure is recorded in its new slot.
      .then(async (result) => {
        for (let hops = 0; result.outcome === 'forwarded' && hops < MAX_FORWARDS; hops++) {
          result = await context.store.fail(this.ref(result.slot), id, fencingToken, failure);
        }
        return result;
      })
      .then(
        (result) => {
          context.reportHealthy();
          const logContext = { topic, id, attempt, error: error.message };
          const timing = final ? {} : { latenessMs: delivery.latenessMs, durationMs: delivery.durationMs };
          if (result.outcome === 'retried') {
            context.logger?.warn(engineMessages.handlerFailed(topic, id, attempt, result.retryAt), logContext);
            context.events.emit('retried', { topic, id, attempt, retryAt: result.retryAt, error, reason: 'handler', ...timing });
          } else if (result.outcome === 'dead') {
            context.logger?.error(engineMessages.deadLettered(topic, id, attempt), logContext);
            context.events.emit('dead', { topic, id, attempts: attempt, error, reason: final ? 'corrupt' : 'handler', ...timing });
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

  /** Settles one delivery with what its ack did (the `AckBatcher`'s callback). */
  readonly settleAck = (delivery: TimeoutDelivery, outcome: AckOutcome, forwardedTo?: number, hops = 0): void => {
    const { events } = this.context;
    if (outcome === 'forwarded') {
      if (hops < MAX_FORWARDS) this.forwardAck(delivery, forwardedTo!, hops + 1);
      else this.settleAck(delivery, 'stale');
      return;
    }
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

  /** Acks in its new slot a delivery that a slot migration moved while its handler ran. */
  private forwardAck(delivery: TimeoutDelivery, slot: number, hops: number): void {
    this.context.store.ackMany(this.ref(slot), [delivery]).then(
      ([result]) => {
        if (typeof result === 'object') this.settleAck(delivery, 'forwarded', result.forwardedTo, hops);
        else this.settleAck(delivery, result === 'acked' ? 'accepted' : 'stale');
      },
      // Not acked: the lease in the new slot runs out and the timeout runs again (at-least-once).
      (error: unknown) => {
        this.context.reportError(error, 'ack', this.topic);
        this.settleAck(delivery, 'abandoned');
      },
    );
  }

  /** Hands deliveries of one slot back as due now, also in the slots a migration moved them to; returns how many. */
  async release(ref: SlotRef, deliveries: readonly AckEntry[]): Promise<number> {
    const result = await this.context.store.release(ref, deliveries);
    return result.released + (await this.releaseForwarded(result.forwarded, deliveries));
  }

  /** Releases in their new slots the deliveries a slot migration moved; returns how many. */
  private async releaseForwarded(moved: readonly { id: string; slot: number }[], deliveries: readonly AckEntry[]): Promise<number> {
    let released = 0;
    for (let hops = 0; moved.length > 0 && hops < MAX_FORWARDS; hops++) {
      const next: { id: string; slot: number }[] = [];
      for (const { id, slot } of moved) {
        const delivery = deliveries.find((entry) => entry.id === id);
        if (!delivery) continue;
        const result = await this.context.store.release(this.ref(slot), [delivery]);
        released += result.released;
        next.push(...result.forwarded);
      }
      moved = next;
    }
    return released;
  }

  /** Logs and emits `released` for what a shutdown handed back. */
  reportReleased(count: number): void {
    if (count === 0) return;
    this.context.logger?.log(engineMessages.released(this.topic, count), { topic: this.topic, count });
    this.context.events.emit('released', { topic: this.topic, count });
  }
}
