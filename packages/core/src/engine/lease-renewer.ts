import type { RenewResult } from '../store/timeout-store.js';
import { followForwards } from '../store/follow-forwards.js';
import { HandlerTimeoutError } from '../errors/handler-timeout.error.js';
import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { LeaseLostError } from '../errors/lease-lost.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import type { EngineContext } from './engine-context.js';
import type { TimeoutDelivery } from './timeout-delivery.js';

/** Longest `extendLease` accepted: a day. */
const MAX_EXTEND_MS = 86_400_000;

/**
 * Keeps the leases of one topic's running handlers: every `leaseMs / 6` it renews, in one
 * `renewLeases` call per slot, each delivery whose lease was set at least `leaseMs / 3` ago, so a
 * renewal is sent with at least half the lease left. Handlers that return within `leaseMs / 3`
 * (most) are never renewed and cost nothing; a thousand long ones cost one call per slot per tick.
 *
 * A renewal refused for a stale token (a newer delivery or schedule owns the timeout) aborts the
 * delivery's signal with `LeaseLostError` at once; so does a lease that ends (on the local
 * monotonic clock) while renewals fail. The same tick ends deliveries that ran past `maxRunMs`.
 * Only a running process renews: the leases of a crashed or frozen worker end after `leaseMs`.
 *
 * A lease is kept from the claim until the handler's ack or failure is recorded, not only while
 * the handler runs: an ack that waits (batched, or on a slow Redis) holds the timeout.
 *
 * The worker that owns the deliveries runs `tick` every `tickMs` while it holds any lease, and ends
 * the deliveries it returns (past `maxRunMs`).
 */
export class LeaseRenewer {
  /** How often `tick` runs while handlers run. */
  readonly tickMs: number;
  private readonly renewAfterMs: number;

  constructor(
    private readonly context: EngineContext,
    private readonly topic: string,
    private readonly leaseMs: number,
    private readonly maxRunMs: number,
    /**
     * The deliveries whose lease this instance holds (owned by the worker): handlers running, and
     * handlers done whose ack or failure is not recorded yet (a slow ack must not let the lease
     * end, or another instance would run the timeout again).
     */
    private readonly leased: ReadonlySet<TimeoutDelivery>,
  ) {
    this.tickMs = Math.max(10, Math.floor(leaseMs / 6));
    this.renewAfterMs = Math.floor(leaseMs / 3);
  }

  /** A handler started: its lease counts from now. */
  track(delivery: TimeoutDelivery): void {
    delivery.leaseSetAt = performance.now();
    delivery.leaseHeldMs = this.leaseMs;
    delivery.extender = this.extend;
  }

  /** A handler ended (or its delivery was given up): no more renewals of it. */
  untrack(delivery: TimeoutDelivery): void {
    delivery.extender = undefined;
  }

  /**
   * One round: sends the renewals that are due (one call per slot, not awaited) and gives up the
   * leases that ended while renewals failed. Returns the deliveries that ran past `maxRunMs`, each
   * with its error, for the worker to end.
   */
  tick(): { delivery: TimeoutDelivery; error: HandlerTimeoutError }[] {
    const now = performance.now();
    const bySlot = new Map<number, TimeoutDelivery[]>();
    const timedOut: { delivery: TimeoutDelivery; error: HandlerTimeoutError }[] = [];
    for (const delivery of [...this.leased]) {
      if (delivery.released || delivery.timedOut || delivery.leaseLost) continue;
      if (!delivery.handlerDone && now - delivery.startedAt >= this.maxRunMs) {
        timedOut.push({ delivery, error: new HandlerTimeoutError(errorMessages.handlerTimedOut(this.topic, delivery.id, delivery.attempt, this.maxRunMs)) });
        continue;
      }
      const leftMs = delivery.leaseSetAt + delivery.leaseHeldMs - now;
      if (leftMs <= 0) {
        // Renewals failed (the store did not answer) until the lease ended: another instance may run it now.
        this.lose(delivery, new LeaseLostError(errorMessages.leaseUnrenewed(this.topic, delivery.id, delivery.attempt)));
        continue;
      }
      // Renewed once a third of the lease is gone (an extension: once what is left is down to that).
      if (delivery.renewing || leftMs > this.leaseMs - this.renewAfterMs) continue;
      const group = bySlot.get(delivery.slot);
      if (group) group.push(delivery);
      else bySlot.set(delivery.slot, [delivery]);
    }
    if (!this.context.storeOpen) return timedOut;
    for (const [slot, deliveries] of bySlot) {
      void this.renew(slot, deliveries, this.leaseMs).catch(() => undefined);
    }
    return timedOut;
  }

  /** `event.extendLease(ms)`: one renewal of this delivery now, with `ms`. */
  private readonly extend = async (delivery: TimeoutDelivery, ms: number): Promise<number> => {
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1 || ms > MAX_EXTEND_MS) throw new InvalidOptionsError(errorMessages.extendLeaseMs(ms));
    if (delivery.leaseLost) throw delivery.signal.reason as Error;
    const [result] = await this.renew(delivery.slot, [delivery], ms);
    if (delivery.leaseLost || result === undefined) throw new LeaseLostError(errorMessages.leaseStale(this.topic, delivery.id, delivery.attempt));
    return result;
  };

  /**
   * Renews `deliveries` of one slot for `leaseMs`, following slot migrations. Resolves with the
   * new lease expiry of each (undefined for one whose lease was lost); rejects when the store failed.
   */
  private async renew(slot: number, deliveries: readonly TimeoutDelivery[], leaseMs: number): Promise<(number | undefined)[]> {
    const sentAt = performance.now();
    for (const delivery of deliveries) delivery.renewing = true;
    const expiries = new Map<TimeoutDelivery, number | undefined>();
    try {
      const entry = ({ id, fencingToken }: TimeoutDelivery) => ({ id, fencingToken, leaseMs });
      const renewOne = (delivery: TimeoutDelivery) => async (to: number) => (await this.context.deliveries.renewLeases(this.context.layouts.slotRef(this.topic, to), [entry(delivery)]))[0]!;
      const results = await this.context.deliveries.renewLeases(this.context.layouts.slotRef(this.topic, slot), deliveries.map(entry));
      const apply = (delivery: TimeoutDelivery, result: RenewResult): void => {
        if (typeof result === 'object' && 'leaseExpiresAt' in result) {
          delivery.leaseExpiresAt = result.leaseExpiresAt;
          // The lease now lasts at least `leaseMs` from when the renewal was sent; an extension may hold longer.
          if (leaseMs >= delivery.leaseHeldMs - (sentAt - delivery.leaseSetAt)) {
            delivery.leaseSetAt = sentAt;
            delivery.leaseHeldMs = leaseMs;
          }
          expiries.set(delivery, result.leaseExpiresAt);
        } else {
          this.lose(delivery, new LeaseLostError(errorMessages.leaseStale(this.topic, delivery.id, delivery.attempt)));
          expiries.set(delivery, undefined);
        }
      };
      // Every answer of the slot counts at once; only then are the deliveries a slot migration moved renewed in their new slot.
      const moved: { delivery: TimeoutDelivery; first: RenewResult }[] = [];
      for (const [i, delivery] of deliveries.entries()) {
        const result = results[i]!;
        if (forwardedTo(result) === undefined) apply(delivery, result);
        else moved.push({ delivery, first: result });
      }
      const followed = await Promise.allSettled(
        moved.map(async ({ delivery, first }) => apply(delivery, await followForwards(first, renewOne(delivery), forwardedTo))),
      );
      const failed = followed.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      if (failed) throw failed.reason;
      this.context.reportHealthy();
    } catch (error) {
      this.context.reportError(error, 'renew', this.topic);
      throw error;
    } finally {
      for (const delivery of deliveries) delivery.renewing = false;
    }
    return deliveries.map((delivery) => expiries.get(delivery));
  }

  private lose(delivery: TimeoutDelivery, reason: LeaseLostError): void {
    if (delivery.leaseLost) return;
    delivery.leaseLost = true;
    // A done handler has nothing left to stop: its ack or failure, refused if stale, says what happened.
    if (delivery.handlerDone) return;
    this.context.logger?.warn(reason.message, { topic: this.topic, id: delivery.id, attempt: delivery.attempt });
    delivery.abort(reason);
  }
}

/** The slot a renewal's answer says a slot migration moved the delivery to, if any. */
function forwardedTo(result: RenewResult): number | undefined {
  return typeof result === 'object' && 'forwardedTo' in result ? result.forwardedTo : undefined;
}
