import { afterEach, describe, expect, it } from '@jest/globals';
import { DurableTimeouts } from '../durable-timeouts.js';
import { ManualClock } from '../testing/manual-clock.js';
import { MemoryTimeoutStore } from '../testing/memory-timeout-store.js';
import { RedisUnavailableError } from '../store/redis-unavailable.error.js';
import type { LeaseRenewal, RenewResult, SlotRef } from '../store/timeout-store.js';
import { waitUntil } from '@durable-timeout/redis-testing';
import { LeaseLostError } from '../errors/lease-lost.error.js';
import type { EngineContext } from './engine-context.js';
import { LeaseRenewer } from './lease-renewer.js';
import { TimeoutDelivery } from './timeout-delivery.js';

/** A memory store that records every renewal call, and can be told to fail them. */
class RecordingStore extends MemoryTimeoutStore {
  readonly renewals: { slot: number; ids: string[] }[] = [];
  failRenewals = false;
  /** While set, acks wait for it (a slow Redis, a long batch linger). */
  ackGate: Promise<void> | undefined;

  constructor(clock: ManualClock) {
    super(clock);
    const renewLeases = this.deliveries.renewLeases.bind(this.deliveries);
    this.deliveries.renewLeases = (slot: SlotRef, entries: readonly LeaseRenewal[]): Promise<RenewResult[]> => {
      this.renewals.push({ slot: slot.slot, ids: entries.map(({ id }) => id) });
      if (this.failRenewals) return Promise.reject(new RedisUnavailableError('renewLeases did not complete within 1000 ms', 'renewLeases'));
      return renewLeases(slot, entries);
    };
    const ack = this.deliveries.ack.bind(this.deliveries);
    const ackMany = this.deliveries.ackMany.bind(this.deliveries);
    this.deliveries.ack = async (...args) => {
      await this.ackGate;
      return ack(...args);
    };
    this.deliveries.ackMany = async (...args) => {
      await this.ackGate;
      return ackMany(...args);
    };
  }
}

const opened: DurableTimeouts[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((timeouts) => timeouts.stop({ drainMs: 0 })));
});

function open(store: RecordingStore, clock: ManualClock, leaseMs: number) {
  const timeouts = new DurableTimeouts({ store, logger: null, topics: { payment: { slots: 2, leaseMs, concurrency: 64 } } });
  opened.push(timeouts);
  return timeouts;
}

describe('lease renewal', () => {
  it('renews the leases of long handlers in one call per slot, none for handlers that return early', async () => {
    const clock = new ManualClock();
    const store = new RecordingStore(clock);
    const timeouts = open(store, clock, 300);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    timeouts.handle('payment', async (event) => {
      started += 1;
      if (event.id.startsWith('long')) await gate;
    });
    const ids = [...Array.from({ length: 20 }, (_, i) => `long-${i}`), ...Array.from({ length: 20 }, (_, i) => `short-${i}`)];
    await timeouts.scheduleMany('payment', ids.map((id) => ({ id, at: clock.now() })));
    await timeouts.start();
    const renewedIds = () => new Set(store.renewals.flatMap((call) => call.ids));
    await waitUntil(() => started === 40 && renewedIds().size === 20);
    release();
    expect([...renewedIds()].every((id) => id.startsWith('long'))).toBe(true);
    // Grouped by slot (one call per slot a tick, never one per handler): on a loaded machine the
    // handlers may start over several ticks, so the exact split varies, but calls carry many ids.
    const calls = store.renewals.length;
    const renewals = store.renewals.reduce((sum, call) => sum + call.ids.length, 0);
    expect(calls).toBeLessThan(renewals);
    expect(store.renewals.every((call) => new Set(call.ids).size === call.ids.length)).toBe(true);
  });

  it('aborts the signal with LeaseLostError when renewals fail until the lease has ended', async () => {
    const clock = new ManualClock();
    const store = new RecordingStore(clock);
    store.failRenewals = true;
    const timeouts = open(store, clock, 150);
    let reason: unknown;
    let heldMs = 0;
    timeouts.handle('payment', async (event) => {
      const started = performance.now();
      await new Promise((resolve) => event.signal.addEventListener('abort', resolve));
      heldMs = performance.now() - started;
      reason = event.signal.reason;
    });
    await timeouts.schedule('payment', 'a', { at: clock.now() });
    await timeouts.start();
    await waitUntil(() => reason !== undefined);
    expect(reason).toMatchObject({ name: 'LeaseLostError', message: expect.stringMatching(/ended before it could be renewed/) });
    // Not before the lease ended. (Whether a renewal was sent first depends on the event loop
    // running within a third of the lease: a stalled test process may send none.)
    expect(heldMs).toBeGreaterThanOrEqual(150 - 1);
  });

  it("keeps renewing a lease after the handler returned, until its ack is recorded, and not after", async () => {
    const clock = new ManualClock();
    const store = new RecordingStore(clock);
    let openAcks!: () => void;
    store.ackGate = new Promise<void>((resolve) => (openAcks = resolve));
    const timeouts = open(store, clock, 150);
    const acked: string[] = [];
    timeouts.on('fired', ({ id }) => acked.push(id));
    let returned = false;
    timeouts.handle('payment', () => {
      returned = true;
    });
    await timeouts.schedule('payment', 'quick', { at: clock.now() });
    await timeouts.start();
    const renewalsOf = () => store.renewals.filter((call) => call.ids.includes('quick')).length;
    // The handler returned at once; its ack waits: the lease is renewed meanwhile (or another instance could claim it).
    await waitUntil(() => returned && renewalsOf() >= 2);
    expect(acked).toEqual([]);
    openAcks();
    await waitUntil(() => acked.length === 1);
    const afterAck = renewalsOf();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(renewalsOf()).toBe(afterAck);
    expect(await timeouts.get('payment', 'quick')).toBeNull();
  });

  it('refuses an extendLease outside 1 to 86,400,000 ms, and one after the delivery ended', async () => {
    const clock = new ManualClock();
    const timeouts = open(new RecordingStore(clock), clock, 1_000);
    const errors: string[] = [];
    let ended: Promise<unknown> | undefined;
    timeouts.handle('payment', async (event) => {
      for (const ms of [0, -5, 1.5, 86_400_001, Number.NaN]) await event.extendLease(ms).catch((error: Error) => errors.push(error.name));
      expect(await event.extendLease(5_000)).toBe(clock.now() + 5_000);
      setImmediate(() => (ended = event.extendLease(5_000).then(() => 'resolved', (error: unknown) => error)));
    });
    await timeouts.schedule('payment', 'x', { at: clock.now() });
    await timeouts.fireDue();
    expect(errors).toEqual(Array(5).fill('InvalidOptionsError'));
    await waitUntil(() => ended !== undefined);
    expect(await ended).toMatchObject({ name: 'LeaseLostError', message: expect.stringMatching(/after its delivery ended/) });
  });
});

describe('lease renewal of deliveries a slot migration moved', () => {
  const LEASE_MS = 600;

  /** A renewer over fakes: slot 0 answers `first` for its deliveries; a forward to slot 1 waits for `answerForward`. */
  function renewerWith(first: RenewResult[]) {
    let answerForward!: (result: RenewResult[] | Error) => void;
    const forwardAnswered = new Promise<RenewResult[] | Error>((resolve) => (answerForward = resolve));
    const forwards: string[] = [];
    const errors: unknown[] = [];
    const context = {
      storeOpen: true,
      logger: null,
      layouts: { slotRef: (topic: string, slot: number): SlotRef => ({ topic, slot }) },
      deliveries: {
        renewLeases: async (ref: SlotRef, entries: readonly LeaseRenewal[]): Promise<RenewResult[]> => {
          if (ref.slot === 0) return first;
          forwards.push(...entries.map(({ id }) => id));
          const answer = await forwardAnswered;
          if (answer instanceof Error) throw answer;
          return answer;
        },
      },
      reportHealthy: () => undefined,
      reportError: (error: unknown) => errors.push(error),
    } as unknown as EngineContext;
    const running = new Set<TimeoutDelivery>();
    const renewer = new LeaseRenewer(context, 'payment', LEASE_MS, 60_000, running);
    const deliveries = ['moved', 'stayed', 'stale'].map((id, n) => {
      const delivery = new TimeoutDelivery('payment', 0, { id, dueAt: 0, scheduledAt: 0, attempt: 1, fencingToken: n + 1, payload: 'null' }, null);
      renewer.track(delivery);
      delivery.startedAt = performance.now();
      // Half the lease gone: due for renewal.
      delivery.leaseSetAt -= LEASE_MS / 2;
      running.add(delivery);
      return delivery;
    });
    return { renewer, deliveries, forwards, errors, answerForward };
  }

  it('applies the answers of the slot at once, while a moved delivery is still being renewed in its new slot', async () => {
    const { renewer, deliveries, forwards, answerForward } = renewerWith([{ forwardedTo: 1 }, { leaseExpiresAt: 5_000 }, 'stale']);
    const [moved, stayed, stale] = deliveries as [TimeoutDelivery, TimeoutDelivery, TimeoutDelivery];
    const setBefore = stayed.leaseSetAt;
    renewer.tick();
    await waitUntil(() => forwards.length === 1);
    expect(forwards).toEqual(['moved']);
    expect(stayed.leaseExpiresAt).toBe(5_000);
    expect(stayed.leaseSetAt).toBeGreaterThan(setBefore);
    expect(stale.leaseLost).toBe(true);
    expect(stale.signal.reason).toBeInstanceOf(LeaseLostError);
    expect(moved.renewing).toBe(true);
    answerForward([{ leaseExpiresAt: 7_000 }]);
    await waitUntil(() => !moved.renewing);
    expect(moved.leaseExpiresAt).toBe(7_000);
  });

  it('keeps the renewals that succeeded when following a moved delivery fails', async () => {
    const { renewer, deliveries, errors, answerForward } = renewerWith([{ forwardedTo: 1 }, { leaseExpiresAt: 5_000 }, 'stale']);
    const [moved, stayed, stale] = deliveries as [TimeoutDelivery, TimeoutDelivery, TimeoutDelivery];
    renewer.tick();
    answerForward(new RedisUnavailableError('renewLeases did not complete within 1000 ms', 'renewLeases'));
    await waitUntil(() => errors.length === 1);
    expect(stayed.leaseExpiresAt).toBe(5_000);
    expect(stale.leaseLost).toBe(true);
    expect(moved.leaseLost).toBe(false);
    expect(moved.leaseExpiresAt).toBe(0);
  });
});
