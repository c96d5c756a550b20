/// <reference types="jest" />
import { LATE_ERROR } from '../src/store/stored-error.js';
import type { LatePolicy, SlotRef, TimeoutStore } from '../src/store/timeout-store.js';
import { waitUntil } from '@durable-timeout/redis-testing';
import { storeContractFrame } from './contract-frame.js';
import { migrateSlots } from '../src/engine/slot-migration.js';
import { slotOf } from '../src/store/slot-of.js';
import type { StoreContractContext } from './timeout-store.contract.js';

const LONG = 60_000;
/** How far past its due time a late timeout is scheduled; far beyond any time a test takes. */
const WAY_LATE = 10_000;

/**
 * The `late` policy of `claim`, as every `TimeoutStore` must implement it: a due timeout claimed
 * more than `afterMs` past its due time is fired, dead-lettered or dropped in the claim itself.
 * Declared by `describeTimeoutStoreContract`, so every store that runs the contract runs this too.
 */
export function describeFlowControlContract(name: string, makeContext: () => Promise<StoreContractContext>): void {
  describe(`TimeoutStore contract, flow control: ${name}`, () => {
    let context: StoreContractContext;
    let store: TimeoutStore;
    const slot: SlotRef = { topic: 'payment', slot: 7 };

    storeContractFrame(makeContext, (made) => {
      context = made;
      store = made.store;
    });

    /** Schedules `late` due WAY_LATE ago and `recent` due 1 ms ago; returns their due times. */
    async function scheduleLateAndRecent(): Promise<{ lateAt: number; recentAt: number; now: number }> {
      const now = await store.now();
      const lateAt = now - WAY_LATE;
      const recentAt = now - 1;
      await store.writes.scheduleMany(slot, [
        { id: 'late', entry: { at: lateAt, payload: '{"n":"late"}' } },
        { id: 'recent', entry: { at: recentAt, payload: '{"n":"recent"}' } },
      ]);
      return { lateAt, recentAt, now };
    }

    const claim = (late: LatePolicy | undefined, limit = 10) => store.deliveries.claim(slot, limit, LONG, undefined, late);

    it.each<[string, LatePolicy | undefined]>([
      ['no policy', undefined],
      ['the fire action', { afterMs: 1_000, action: 'fire' }],
    ])('claims late timeouts like any other with %s', async (_, late) => {
      await scheduleLateAndRecent();
      const result = await claim(late);
      expect(result.claimed.map((entry) => entry.id)).toEqual(['late', 'recent']);
      expect(result.incidents).toEqual([]);
    });

    it('dead-letters a timeout claimed more than afterMs late, with the late error, and claims the rest', async () => {
      const { lateAt } = await scheduleLateAndRecent();
      const result = await claim({ afterMs: 5_000, action: 'dead-letter' });
      expect(result.claimed.map((entry) => entry.id)).toEqual(['recent']);
      expect(result.incidents).toEqual([{ id: 'late', kind: 'late_dead', attempts: 0, at: result.now, error: LATE_ERROR, dueAt: lateAt }]);
      expect(result.now - lateAt).toBeGreaterThan(5_000);
      expect(await store.reads.get(slot, 'late')).toMatchObject({ state: 'dead', attempt: 0, lastError: LATE_ERROR, payload: '{"n":"late"}' });
      expect(await store.reads.listDead(slot, 0, 10)).toEqual([expect.objectContaining({ id: 'late', lastError: LATE_ERROR, payload: '{"n":"late"}' })]);
      expect((await store.reads.stats(slot)).dead).toBe(1);
      // Nothing is left to claim: the decision was made once, in the claim.
      expect((await claim({ afterMs: 5_000, action: 'dead-letter' })).claimed).toEqual([]);
    });

    it('makes a late dead letter replayable: replayed, it is due now and fires under the same policy', async () => {
      await scheduleLateAndRecent();
      await claim({ afterMs: 5_000, action: 'dead-letter' });
      expect(await store.reads.replayDead(slot, ['late'])).toBe(1);
      const again = await claim({ afterMs: 5_000, action: 'dead-letter' });
      expect(again.claimed.map((entry) => [entry.id, entry.attempt, entry.payload])).toEqual([['late', 1, '{"n":"late"}']]);
      expect(again.incidents).toEqual([]);
    });

    it('drops a timeout claimed more than afterMs late: gone, no dead letter, and the rest claimed', async () => {
      const { lateAt } = await scheduleLateAndRecent();
      const result = await claim({ afterMs: 5_000, action: 'skip' });
      expect(result.claimed.map((entry) => entry.id)).toEqual(['recent']);
      expect(result.incidents).toEqual([{ id: 'late', kind: 'late_skipped', attempts: 0, at: result.now, error: '', dueAt: lateAt }]);
      expect(await store.reads.get(slot, 'late')).toBeNull();
      expect(await store.reads.stats(slot)).toMatchObject({ pending: 0, firing: 1, dead: 0 });
      expect(await store.writes.cancel(slot, 'late')).toBe('not_found');
    });

    it('counts refused timeouts towards the limit and reports the next due time of what is left', async () => {
      const now = await store.now();
      await store.writes.scheduleMany(slot, [
        { id: 'a', entry: { at: now - WAY_LATE - 2, payload: '1' } },
        { id: 'b', entry: { at: now - WAY_LATE - 1, payload: '2' } },
        { id: 'c', entry: { at: now - 1, payload: '3' } },
      ]);
      const first = await claim({ afterMs: 5_000, action: 'skip' }, 2);
      expect(first.claimed).toEqual([]);
      expect(first.incidents.map((incident) => [incident.id, incident.kind])).toEqual([
        ['a', 'late_skipped'],
        ['b', 'late_skipped'],
      ]);
      expect(first.nextDueAt).toBe(now - 1);
      expect((await claim({ afterMs: 5_000, action: 'skip' }, 2)).claimed.map((entry) => entry.id)).toEqual(['c']);
    });

    it('keeps the attempts of a retried timeout in its late dead letter, and judges lateness by the due time of the retry', async () => {
      const now = await store.now();
      await store.writes.schedule(slot, 'retried', { at: now - 1, payload: '"r"' });
      const [first] = (await claim(undefined)).claimed;
      await store.deliveries.fail(slot, 'retried', first!.fencingToken, { error: 'boom', retryDelayMs: 0, maxAttempts: 5 });
      // Retried at once: due now, not late, whatever its first due time was.
      const retried = await claim({ afterMs: 5_000, action: 'dead-letter' });
      expect(retried.claimed.map((entry) => [entry.id, entry.attempt])).toEqual([['retried', 2]]);
      await store.deliveries.fail(slot, 'retried', retried.claimed[0]!.fencingToken, { error: 'boom', retryDelayMs: 0, maxAttempts: 5 });
      await context.advance(20);
      const refused = await claim({ afterMs: 10, action: 'dead-letter' });
      expect(refused.claimed).toEqual([]);
      expect(refused.incidents).toEqual([expect.objectContaining({ id: 'retried', kind: 'late_dead', attempts: 2 })]);
      expect(await store.reads.get(slot, 'retried')).toMatchObject({ state: 'dead', attempt: 2, lastError: LATE_ERROR, payload: '"r"' });
    });

    describe('pause and resume', () => {
      const otherSlot: SlotRef = { topic: 'payment', slot: 8 };

      it('claims nothing and changes nothing in a paused slot, expired leases included; other slots go on', async () => {
        const now = await store.now();
        await store.writes.schedule(slot, 'leased', { at: now - 1, payload: '1' });
        const [leased] = (await store.deliveries.claim(slot, 1, 1)).claimed;
        await store.writes.schedule(slot, 'due', { at: now - 1, payload: '2' });
        await store.writes.schedule(otherSlot, 'elsewhere', { at: now - 1, payload: '3' });
        const paused = await store.reads.pause(slot);
        expect(paused.pausedAt).toBe(paused.now);
        await context.advance(5);
        const result = await store.deliveries.claim(slot, 10, LONG);
        expect(result).toEqual({ claimed: [], incidents: [], now: expect.any(Number), nextDueAt: null, recovered: 0, nextLeaseExpiresAt: null, paused: true });
        expect(await store.reads.get(slot, 'due')).toMatchObject({ state: 'pending', attempt: 0 });
        expect(await store.reads.get(slot, 'leased')).toMatchObject({ state: 'firing', fencingToken: leased!.fencingToken });
        expect((await store.deliveries.claim(otherSlot, 10, LONG)).claimed.map((entry) => entry.id)).toEqual(['elsewhere']);
      });

      it('keeps accepting schedules and cancels while paused, and reports the pause with its first time', async () => {
        expect(await store.reads.pauseState(slot)).toEqual({ now: expect.any(Number), pausedAt: null });
        const first = await store.reads.pause(slot);
        await context.advance(5);
        expect((await store.reads.pause(slot)).pausedAt).toBe(first.pausedAt);
        expect((await store.reads.pauseState(slot)).pausedAt).toBe(first.pausedAt);
        expect((await store.reads.pauseState(otherSlot)).pausedAt).toBeNull();
        const now = await store.now();
        expect((await store.writes.schedule(slot, 'kept', { at: now - 1, payload: '1' })).outcome).toBe('created');
        await store.writes.schedule(slot, 'dropped', { at: now - 1, payload: '2' });
        expect(await store.writes.cancel(slot, 'dropped')).toBe('cancelled');
        expect(await store.reads.stats(slot)).toMatchObject({ pending: 1, firing: 0 });
      });

      it('reports the pause mark in the stats of the slot, from the pause to the resume', async () => {
        expect((await store.reads.stats(slot)).pausedAt).toBeNull();
        const { pausedAt } = await store.reads.pause(slot);
        await context.advance(5);
        expect(await store.reads.stats(slot)).toMatchObject({ pending: 0, firing: 0, dead: 0, pausedAt });
        expect((await store.reads.stats(otherSlot)).pausedAt).toBeNull();
        await store.reads.resume(slot, false);
        expect((await store.reads.stats(slot)).pausedAt).toBeNull();
      });

      it('resumes without shift: what fell due is claimed at once, and a second resume changes nothing', async () => {
        const now = await store.now();
        await store.writes.schedule(slot, 'waited', { at: now - 1, payload: '1' });
        const { pausedAt } = await store.reads.pause(slot);
        await context.advance(20);
        const resumed = await store.reads.resume(slot, false);
        expect(resumed).toEqual({ now: expect.any(Number), pausedAt, shifted: 0 });
        expect(resumed.now - pausedAt!).toBeGreaterThanOrEqual(20);
        const claimed = await store.deliveries.claim(slot, 10, LONG);
        expect(claimed.paused).toBeUndefined();
        expect(claimed.claimed.map((entry) => [entry.id, entry.dueAt])).toEqual([['waited', now - 1]]);
        expect(await store.reads.resume(slot, true)).toEqual({ now: expect.any(Number), pausedAt: null, shifted: 0 });
      });

      it('resumes with shift: every pending due time moves later by the pause, scheduledAt and payload kept, firing ones untouched', async () => {
        const now = await store.now();
        await store.writes.schedule(slot, 'firing', { at: now - 1, payload: '"f"' });
        await store.deliveries.claim(slot, 1, LONG);
        await store.writes.schedule(slot, 'overdue', { at: now - 1, payload: '"o"' });
        await store.writes.schedule(slot, 'later', { at: now + LONG, payload: '"l"' });
        const before = await store.reads.get(slot, 'later');
        const { pausedAt } = await store.reads.pause(slot);
        await context.advance(30);
        const resumed = await store.reads.resume(slot, true);
        const pauseMs = resumed.now - pausedAt!;
        expect(pauseMs).toBeGreaterThanOrEqual(30);
        expect(resumed).toMatchObject({ pausedAt, shifted: 2 });
        expect(await store.reads.get(slot, 'overdue')).toMatchObject({ state: 'pending', dueAt: now - 1 + pauseMs, payload: '"o"' });
        expect(await store.reads.get(slot, 'later')).toMatchObject({ state: 'pending', dueAt: now + LONG + pauseMs, scheduledAt: before!.scheduledAt, payload: '"l"' });
        expect(await store.reads.get(slot, 'firing')).toMatchObject({ state: 'firing', dueAt: now - 1 });
        expect((await store.reads.listPending(slot, 0, 10)).map((entry) => entry.id)).toEqual(['overdue', 'later']);
      });

      it('wakes the subscribers of the topic when a slot resumes', async () => {
        const peer = await context.openPeer();
        const woken: [number, number][] = [];
        const unsubscribe = await peer.subscribe(['payment'], (ref, dueAt) => woken.push([ref.slot, dueAt]), () => undefined);
        try {
          const now = await store.now();
          await store.writes.schedule(slot, 'waiting', { at: now + LONG, payload: '1' });
          // The schedule's own wake-up first; then only the resume can wake the slot again.
          await waitUntil(() => woken.length === 1);
          await store.reads.pause(slot);
          await store.reads.resume(slot, false);
          await waitUntil(() => woken.length === 2);
          expect(woken).toEqual([
            [slot.slot, now + LONG],
            [slot.slot, now + LONG],
          ]);
        } finally {
          await unsubscribe();
        }
      });

      it('carries a pause through a slot migration: each slot the topic gains is paused from the same time until the resume clears every slot', async () => {
        const slots = (count: number): SlotRef[] => Array.from({ length: count }, (_, i) => ({ topic: 'payment', slot: i }));
        await store.layout.claimLayout('payment', 16);
        const now = await store.now();
        // One timeout in each slot of 32, all due: after the move half of them live in slots 16..31.
        const ids = Array.from({ length: 200 }, (_, i) => `order-${i}`);
        for (const id of ids) await store.writes.schedule({ topic: 'payment', slot: slotOf(id, 16) }, id, { at: now - 1, payload: '1' });
        const times = (await Promise.all(slots(16).map((ref) => store.reads.pause(ref)))).map((state) => state.pausedAt!);
        // The slots gained are paused since the earliest pause of the others (on a Cluster, each
        // slot's time is its own master's clock).
        const expected = [...times, ...Array.from({ length: 16 }, () => Math.min(...times))];
        await context.advance(10);
        await migrateSlots(store, 'payment', 32);
        for (const ref of slots(32)) {
          expect(await store.reads.pauseState(ref)).toEqual({ now: expect.any(Number), pausedAt: expected[ref.slot] });
          expect(await store.deliveries.claim(ref, 10, LONG)).toMatchObject({ claimed: [], paused: true });
        }
        const resumed = await Promise.all(slots(32).map((ref) => store.reads.resume(ref, false)));
        expect(resumed.map((result) => result.pausedAt)).toEqual(expected);
        const claimed: string[] = [];
        for (const ref of slots(32)) {
          expect((await store.reads.pauseState(ref)).pausedAt).toBeNull();
          claimed.push(...(await store.deliveries.claim(ref, 500, LONG)).claimed.map((entry) => entry.id));
        }
        expect(claimed.sort()).toEqual([...ids].sort());
      });

      it('keeps the pause of a slot it gains when the pause came after it read the topic not paused', async () => {
        await store.layout.claimLayout('payment', 4);
        const slots = (count: number): SlotRef[] => Array.from({ length: count }, (_, i) => ({ topic: 'payment', slot: i }));
        // The migration reads the 4 old slots not paused; then a pause that saw the move marks the
        // slots of both counts, before the migration gives the new slots the state it read.
        let oldSlotsRead = 0;
        const reads = new Proxy(store.reads, {
          get: (target, name) => {
            if (name === 'pauseState') {
              return async (ref: SlotRef) => {
                const state = await target.pauseState(ref);
                if (ref.slot < 4 && ++oldSlotsRead === 4) for (const each of slots(8)) await target.pause(each);
                return state;
              };
            }
            const value: unknown = Reflect.get(target, name, target);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
        const racing = new Proxy(store, {
          get: (target, name) => (name === 'reads' ? reads : Reflect.get(target, name, target)),
        });
        await migrateSlots(racing, 'payment', 8);
        expect(oldSlotsRead).toBeGreaterThanOrEqual(4);
        for (const ref of slots(8)) expect((await store.reads.pauseState(ref)).pausedAt).not.toBeNull();
      });

      it('clears a stale pause from a slot the topic gains while it is not paused', async () => {
        await store.layout.claimLayout('payment', 16);
        // Slot 20 was paused while the topic last had 32 slots; the topic was resumed after it shrank.
        await store.reads.pause({ topic: 'payment', slot: 20 });
        await migrateSlots(store, 'payment', 32);
        expect((await store.reads.pauseState({ topic: 'payment', slot: 20 })).pausedAt).toBeNull();
      });

      it('clears the pause of the slots a shrinking migration of a paused topic gives up', async () => {
        await store.layout.claimLayout('payment', 16);
        for (let i = 0; i < 16; i++) await store.reads.pause({ topic: 'payment', slot: i });
        await migrateSlots(store, 'payment', 8);
        for (let i = 0; i < 8; i++) expect((await store.reads.pauseState({ topic: 'payment', slot: i })).pausedAt).not.toBeNull();
        for (let i = 8; i < 16; i++) expect((await store.reads.pauseState({ topic: 'payment', slot: i })).pausedAt).toBeNull();
      });
    });

    describe('rate limit', () => {
      /** One token a second, three at most: a test waits for a token only when it means to. */
      const rate = { perMs: 0.001, burst: 3 };

      async function scheduleDue(count: number): Promise<number> {
        const now = await store.now();
        await store.writes.scheduleMany(slot, Array.from({ length: count }, (_, i) => ({ id: `r-${i}`, entry: { at: now - 100 + i, payload: String(i) } })));
        return now;
      }

      it('claims at most the burst, then nothing until a token comes, and says when it comes', async () => {
        // One token in 10 s: no token comes between two claims of this test.
        const slow = { perMs: 0.0001, burst: 3 };
        await scheduleDue(5);
        const first = await store.deliveries.claim(slot, 10, LONG, undefined, undefined, slow);
        expect(first.claimed.map((entry) => entry.id)).toEqual(['r-0', 'r-1', 'r-2']);
        const second = await store.deliveries.claim(slot, 10, LONG, undefined, undefined, slow);
        expect(second.claimed).toEqual([]);
        // The remaining due ids wait for the token: the next claim worth making is when it comes.
        expect(second.nextDueAt).toBeGreaterThan(second.now);
        expect(second.nextDueAt).toBeLessThanOrEqual(first.now + 10_000);
        // The bucket shares the slot's flow record with the pause mark: it is no pause.
        expect(await store.reads.stats(slot)).toMatchObject({ pending: 2, pausedAt: null });
      });

      it('refills at its rate up to the burst, on the store clock', async () => {
        await scheduleDue(6);
        expect((await store.deliveries.claim(slot, 10, LONG, undefined, undefined, rate)).claimed).toHaveLength(3);
        await context.advance(1_050);
        const refilled = await store.deliveries.claim(slot, 10, LONG, undefined, undefined, rate);
        expect(refilled.claimed.map((entry) => entry.id)).toEqual(['r-3']);
        expect(refilled.nextDueAt).toBeGreaterThan(refilled.now);
      });

      it('leaves a slot without a limit alone, and keeps each slot its own bucket', async () => {
        await scheduleDue(5);
        expect((await store.deliveries.claim(slot, 10, LONG)).claimed).toHaveLength(5);
        const now = await store.now();
        await store.writes.schedule({ topic: 'payment', slot: 9 }, 'other', { at: now - 1, payload: '1' });
        expect((await store.deliveries.claim({ topic: 'payment', slot: 9 }, 10, LONG, undefined, undefined, rate)).claimed).toHaveLength(1);
      });
    });
  });
}
