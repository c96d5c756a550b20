import type { LeaseRenewal, RenewResult, SlotRef } from '../store/timeout-store.js';
import { HandlerTimeoutError } from '../errors/handler-timeout.error.js';
import { InvalidOptionsError } from '../errors/invalid-options.error.js';
import { LeaseLostError } from '../errors/lease-lost.error.js';
import { errorMessages } from '../errors/errors.messages.js';
import type { EngineContext } from './engine-context.js';
import type { TimeoutDelivery } from './timeout-delivery.js';

/** Most slots a renewal follows after slot migrations moved its delivery. */
const MAX_FORWARDS = 4;
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
 */
export class LeaseRenewer {
  private timer: NodeJS.Timeout | undefined;
  private readonly tickMs: number;
  private readonly renewAfterMs: number;

  constructor(
    private readonly context: EngineContext,
    private readonly topic: string,
    private readonly leaseMs: number,
    private readonly maxRunMs: number,
    /** The deliveries whose handlers run now (owned by the worker). */
    private readonly running: ReadonlySet<TimeoutDelivery>,
    private readonly ref: (slot: number) => SlotRef,
    /** Ends a delivery that ran past `maxRunMs` (records the failure). */
    private readonly onTimedOut: (delivery: TimeoutDelivery, error: HandlerTimeoutError) => void,
  ) {
    this.tickMs = Math.max(10, Math.floor(leaseMs / 6));
    this.renewAfterMs = Math.floor(leaseMs / 3);
  }

  /** A handler started: its lease counts from now, and the ticks run while any handler does. */
  track(delivery: TimeoutDelivery): void {
    delivery.leaseSetAt = performance.now();
    delivery.leaseHeldMs = this.leaseMs;
    delivery.extender = this.extend;
    if (this.timer === undefined) {
      this.timer = setInterval(this.tick, this.tickMs);
      this.timer.unref();
    }
  }

  /** A handler ended (or its delivery was given up): no more renewals of it. */
  untrack(delivery: TimeoutDelivery): void {
    delivery.extender = undefined;
    if (this.running.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Stops the ticks (the engine stopped). */
  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private readonly tick = (): void => {
    const now = performance.now();
    const bySlot = new Map<number, TimeoutDelivery[]>();
    for (const delivery of [...this.running]) {
      if (delivery.released || delivery.timedOut || delivery.leaseLost) continue;
      if (now - delivery.startedAt >= this.maxRunMs) {
        this.onTimedOut(delivery, new HandlerTimeoutError(errorMessages.handlerTimedOut(this.topic, delivery.id, delivery.attempt, this.maxRunMs)));
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
    if (!this.context.storeOpen) return;
    for (const [slot, deliveries] of bySlot) {
      void this.renew(slot, deliveries, this.leaseMs).catch(() => undefined);
    }
  };

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
      let pending: { slot: number; deliveries: readonly TimeoutDelivery[] }[] = [{ slot, deliveries }];
      for (let hops = 0; pending.length > 0; hops++) {
        const next: typeof pending = [];
        for (const group of pending) {
          const entries: LeaseRenewal[] = group.deliveries.map(({ id, fencingToken }) => ({ id, fencingToken, leaseMs }));
          const results = await this.context.store.renewLeases(this.ref(group.slot), entries);
          group.deliveries.forEach((delivery, i) => {
            const result: RenewResult = results[i]!;
            if (typeof result === 'object' && 'forwardedTo' in result && hops < MAX_FORWARDS) {
              next.push({ slot: result.forwardedTo, deliveries: [delivery] });
            } else if (typeof result === 'object' && 'leaseExpiresAt' in result) {
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
          });
        }
        pending = next;
      }
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
    this.context.logger?.warn(reason.message, { topic: this.topic, id: delivery.id, attempt: delivery.attempt });
    delivery.abort(reason);
  }
}
