import type { AckEntry, AckResult, ClaimIncident, FailOutcome, NextOccurrence, SlotRef } from '../store/timeout-store.js';
import { followForwards, MAX_FORWARDS } from '../store/follow-forwards.js';
import type { DeadReason, ResolvedTopicOptions } from '../types.js';
import type { AckSettlement } from './ack-batcher.js';
import type { EngineContext } from './engine-context.js';
import { engineMessages } from './engine.messages.js';
import { retryDelayMs } from '../support/retry-backoff.js';
import type { TimeoutDelivery } from './timeout-delivery.js';

/**
 * How the deliveries of one topic end, as the store records it and as the engine tells it: the
 * incidents a claim reports (expired leases, unreadable entries), failures recorded for retry or
 * dead-lettering, acks settled into `fired` / `stale` events, and releases at shutdown. A slot
 * migration may have moved a delivery while its handler ran: its ack, fail or release follows
 * the forward to the new slot (at most `MAX_FORWARDS` hops).
 *
 * `recordFailure` and `settleAck` resolve (never reject) once the delivery is settled, whatever
 * its outcome: the worker that owns the delivery counts it settled then.
 */
export class DeliveryOutcomes {
  constructor(
    private readonly context: EngineContext,
    private readonly topic: string,
    private readonly options: ResolvedTopicOptions,
  ) {}

  /**
   * Emits the event (and logs the line) of each timeout a claim retried, dead-lettered or dropped
   * itself. Those the late policy refused get one log line per claim, not one per timeout: after
   * an outage they come by the thousand.
   */
  reportIncidents(incidents: readonly ClaimIncident[]): void {
    let late = 0;
    let action: 'dead-letter' | 'skip' = 'skip';
    for (const incident of incidents) {
      if (incident.kind === 'late_dead' || incident.kind === 'late_skipped') {
        late++;
        action = incident.kind === 'late_dead' ? 'dead-letter' : 'skip';
        this.reportLate(incident);
      } else {
        this.reportIncident(incident);
      }
    }
    const policy = this.options.late;
    if (late > 0 && policy) this.context.logger?.warn(engineMessages.lateRefused(this.topic, late, policy.afterMs, action), { topic: this.topic });
  }

  private reportLate(incident: ClaimIncident): void {
    const { topic } = this;
    const { id, attempts } = incident;
    const dueAt = incident.dueAt ?? incident.at;
    const lateByMs = Math.max(0, incident.at - dueAt);
    if (incident.kind === 'late_dead') {
      this.context.events.emit('dead', { topic, id, attempts, error: new Error(incident.error), reason: 'late', lateByMs });
    } else {
      this.context.events.emit('skipped', { topic, id, attempts, dueAt, lateByMs });
    }
  }

  private reportIncident(incident: ClaimIncident): void {
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
    const reason: DeadReason = incident.kind === 'lease_dead' ? 'lease_expired' : incident.kind === 'late_dead' ? 'late' : (incident.kind as 'corrupt' | 'missing');
    logger?.error(engineMessages.deadByStore(topic, id, reason, text), logContext);
    events.emit('dead', { topic, id, attempts, error, reason });
  }

  /** A handler threw (or the payload could not be read: `final`, straight to the dead letters). Resolves once settled. */
  recordFailure(delivery: TimeoutDelivery<unknown>, error: Error, final: boolean): Promise<void> {
    const { topic, id, attempt, fencingToken } = delivery;
    const { context, options } = this;
    const failure = {
      error: error.message || error.name,
      retryDelayMs: retryDelayMs(attempt, options.backoff),
      maxAttempts: final ? attempt : options.maxAttempts,
    };
    const fail = (slot: number) => context.deliveries.fail(this.ref(slot), id, fencingToken, failure);
    return fail(delivery.slot)
      // A slot migration moved the delivery: the failure is recorded in its new slot.
      .then((first) => followForwards<FailOutcome>(first, fail, (result) => (result.outcome === 'forwarded' ? result.slot : undefined)))
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
          } else if (!delivery.cancelled) {
            // Refused after a cancel notice: the cancel removed it (no event, as for a cancel heard while running).
            context.logger?.warn(engineMessages.stale(topic, id, attempt, 'failure record'), logContext);
            context.events.emit('stale', { topic, id, attempt, fencingToken });
          }
        },
        // Unrecorded, the failure still counts: the lease runs out and the next claim spends an attempt.
        (storeError: unknown) => context.reportError(storeError, 'fail', topic),
      );
  }

  /** Tells what the ack of one delivery came to (`AckBatcher.add`): follows a forward first. Resolves once settled. */
  async settleAck(delivery: TimeoutDelivery, { outcome, forwardedTo }: AckSettlement): Promise<void> {
    const { events } = this.context;
    if (outcome === 'forwarded') {
      await this.settleAck(delivery, await this.forwardAck(delivery, forwardedTo!));
      return;
    }
    if (outcome === 'accepted') {
      if (events.has('fired')) {
        events.emit('fired', {
          topic: delivery.topic,
          id: delivery.id,
          attempt: delivery.attempt,
          dueAt: delivery.dueAt,
          lateByMs: delivery.lateByMs,
          latenessMs: delivery.latenessMs,
          durationMs: delivery.durationMs,
        });
      }
    } else if (outcome === 'stale' && !delivery.cancelled) {
      // Refused after a cancel notice: the cancel removed it (no event, as for a cancel heard while running).
      events.emit('stale', { topic: delivery.topic, id: delivery.id, attempt: delivery.attempt, fencingToken: delivery.fencingToken });
    }
  }

  /**
   * Acks a recurring schedule's occurrence and writes its next one in the same step, following a
   * slot migration's forward; what that came to. A store failure leaves the occurrence leased: it
   * runs again once its lease ends, and writes the next occurrence then (never lost).
   */
  async ackNext(delivery: TimeoutDelivery, next: NextOccurrence): Promise<AckSettlement> {
    const ackNext = (slot: number) => this.context.deliveries.ackNext(this.ref(slot), delivery.id, delivery.fencingToken, next);
    try {
      const result = await followForwards<AckResult>(await ackNext(delivery.slot), ackNext, (answer) => (typeof answer === 'object' ? answer.forwardedTo : undefined));
      return { outcome: result === 'acked' ? 'accepted' : 'stale' };
    } catch (error) {
      this.context.reportError(error, 'ack', this.topic);
      return { outcome: 'abandoned' };
    }
  }

  /** Acks in its new slot a delivery that a slot migration moved while its handler ran; what that ack came to. */
  private async forwardAck(delivery: TimeoutDelivery, slot: number): Promise<AckSettlement> {
    const ack = async (to: number) => (await this.context.deliveries.ackMany(this.ref(to), [delivery]))[0]!;
    try {
      const result = await followForwards<AckResult>({ forwardedTo: slot }, ack, (answer) => (typeof answer === 'object' ? answer.forwardedTo : undefined));
      return { outcome: result === 'acked' ? 'accepted' : 'stale' };
    } catch (error) {
      // Not acked: the lease in the new slot runs out and the timeout runs again (at-least-once).
      this.context.reportError(error, 'ack', this.topic);
      return { outcome: 'abandoned' };
    }
  }

  /** Hands deliveries of one slot back as due now, also in the slots a migration moved them to; returns how many. */
  async release(ref: SlotRef, deliveries: readonly AckEntry[]): Promise<number> {
    const result = await this.context.deliveries.release(ref, deliveries);
    return result.released + (await this.releaseForwarded(result.forwarded, deliveries));
  }

  /** Releases in their new slots the deliveries a slot migration moved; returns how many. */
  private async releaseForwarded(moved: readonly { id: string; slot: number }[], deliveries: readonly AckEntry[]): Promise<number> {
    let released = 0;
    for (const { id, slot } of moved) {
      const delivery = deliveries.find((entry) => entry.id === id);
      if (!delivery) continue;
      const release = (to: number) => this.context.deliveries.release(this.ref(to), [delivery]);
      const result = await followForwards({ released: 0, forwarded: [{ id, slot }] }, release, (answer) => answer.forwarded[0]?.slot);
      released += result.released;
    }
    return released;
  }

  /** Logs and emits `released` for what a shutdown handed back. */
  reportReleased(count: number): void {
    if (count === 0) return;
    this.context.logger?.log(engineMessages.released(this.topic, count), { topic: this.topic, count });
    this.context.events.emit('released', { topic: this.topic, count });
  }

  /** The reference of one slot of this topic (the same object every time). */
  private ref(slot: number): SlotRef {
    return this.context.layouts.slotRef(this.topic, slot);
  }
}
