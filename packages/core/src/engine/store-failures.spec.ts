import { afterEach, describe, expect, it } from '@jest/globals';
import { DurableTimeouts } from '../durable-timeouts.js';
import { ManualClock } from '../testing/manual-clock.js';
import { MemoryTimeoutStore } from '../testing/memory-timeout-store.js';
import type { AckEntry, AckResult, ClaimResult, LeaseExpiryPolicy, SlotRef } from '../store/timeout-store.js';
import type { DurableTimeoutsEvents, DurableTimeoutsOptions } from '../types.js';
import { waitUntil } from '@durable-timeout/redis-testing';

/** A memory store whose claim and ackMany fail a given number of times first, like Redis going away. */
class FlakyStore extends MemoryTimeoutStore {
  claimFailures = 0;
  ackFailures = 0;

  constructor(clock: ManualClock) {
    super(clock);
    const { deliveries } = this;
    const claim = deliveries.claim.bind(deliveries);
    const ackMany = deliveries.ackMany.bind(deliveries);
    deliveries.claim = async (slot: SlotRef, limit: number, leaseMs: number, expiry?: LeaseExpiryPolicy): Promise<ClaimResult> => {
      if (this.claimFailures > 0) {
        this.claimFailures--;
        throw new Error('connect ECONNREFUSED (claim)');
      }
      return claim(slot, limit, leaseMs, expiry);
    };
    deliveries.ackMany = async (slot: SlotRef, entries: readonly AckEntry[]): Promise<AckResult[]> => {
      if (this.ackFailures > 0) {
        this.ackFailures--;
        throw new Error('connect ECONNREFUSED (ack)');
      }
      return ackMany(slot, entries);
    };
  }
}

const opened: DurableTimeouts[] = [];

/** A new engine, stopped after each test even when the test failed. */
function open(options: DurableTimeoutsOptions): DurableTimeouts {
  const timeouts = new DurableTimeouts(options);
  opened.push(timeouts);
  return timeouts;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((timeouts) => timeouts.stop({ drainMs: 0 })));
});

describe('the engine when the store fails', () => {
  it('emits error, backs off and retries claims and acks until they pass, logging the outage once', async () => {
    const store = new FlakyStore(new ManualClock());
    const lines: string[] = [];
    const logger = { log: (m: string) => lines.push(`log ${m}`), warn: (m: string) => lines.push(`warn ${m}`), error: (m: string) => lines.push(`error ${m}`) };
    const timeouts = open({ store, topics: { payment: { slots: 1 } }, logger });
    const errors: DurableTimeoutsEvents['error'][] = [];
    const fired: string[] = [];
    timeouts.on('error', (event) => errors.push(event));
    timeouts.on('fired', (event) => fired.push(event.id));
    timeouts.handle('payment', () => undefined);
    await timeouts.schedule('payment', 'order-1', { delayMs: 0 });
    store.claimFailures = 3;
    store.ackFailures = 2;
    await timeouts.start();
    await waitUntil(() => fired.length === 1);
    expect(fired).toEqual(['order-1']);
    expect(errors.map((event) => event.operation)).toEqual(['claim', 'claim', 'claim', 'ack', 'ack']);
    expect(errors.every((event) => event.topic === 'payment' && event.error.message.includes('ECONNREFUSED'))).toBe(true);
    expect(lines.filter((line) => line.startsWith('error'))).toHaveLength(2);
    expect(lines.some((line) => line.includes('answers again'))).toBe(true);
    await timeouts.stop();
  });

  it('gives an ack up once the lease has ended: no fired, no stale, the timeout runs again', async () => {
    const clock = new ManualClock();
    const store = new FlakyStore(clock);
    // No backoff: the expired lease (a failed attempt) is retried at once.
    const timeouts = open({ store, topics: { payment: { slots: 1, leaseMs: 100, backoff: { baseMs: 0 } } }, logger: null });
    const seen: string[] = [];
    timeouts.on('fired', () => seen.push('fired'));
    timeouts.on('stale', () => seen.push('stale'));
    let runs = 0;
    timeouts.handle('payment', () => {
      runs++;
    });
    await timeouts.schedule('payment', 'order-1', { delayMs: 0 });
    store.ackFailures = Number.POSITIVE_INFINITY;
    // The acks fail until the lease (100 ms, as the engine estimates the store clock) has ended.
    await timeouts.fireDue();
    expect(runs).toBe(1);
    expect(seen).toEqual([]);
    expect(await timeouts.get('payment', 'order-1')).toMatchObject({ state: 'firing', attempt: 1 });
    store.ackFailures = 0;
    clock.advanceBy(100);
    await timeouts.fireDue();
    expect(runs).toBe(2);
    expect(seen).toEqual(['fired']);
    expect(await timeouts.get('payment', 'order-1')).toBeNull();
  });

  it('claims every slot at once when the wake-up subscription comes back (wake-ups may have been lost)', async () => {
    class DeafStore extends MemoryTimeoutStore {
      resubscribed: (() => void) | undefined;
      override async subscribe(_topics: readonly string[], _onWake: (slot: SlotRef, dueAt: number) => void, onResubscribed: () => void) {
        // Wake-ups are lost on purpose; only the re-subscription callback is kept.
        this.resubscribed = onResubscribed;
        return async () => undefined;
      }
    }
    const store = new DeafStore(new ManualClock());
    const timeouts = open({ store, topics: { payment: { slots: 4 } }, sweepIntervalMs: 3_600_000, logger: null });
    const fired: string[] = [];
    timeouts.handle('payment', (event) => {
      fired.push(event.id);
    });
    await timeouts.start();
    // The memory store answers within microtasks: one macrotask later the first claims of start()
    // have found the slots empty and every poller sleeps for the sweep.
    await new Promise((resolve) => setImmediate(resolve));
    await timeouts.schedule('payment', 'order-1', { delayMs: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(fired).toEqual([]);
    store.resubscribed!();
    await waitUntil(() => fired.length === 1);
    expect(fired).toEqual(['order-1']);
    await timeouts.stop();
  });
});
