/// <reference types="jest" />
import type { SlotRef, TimeoutStore } from '../src/store/timeout-store.js';
import { storeContractFrame } from './contract-frame.js';
import type { StoreContractContext } from './timeout-store.contract.js';

const LONG = 60_000;
/** A lease that ends within the test; long enough that a loaded machine does not outrun it. */
const SHORT = 150;
/** Store time to let pass so that `SHORT` has surely ended. */
const PAST_SHORT = 200;

/**
 * `ackNext`, as every `TimeoutStore` must implement it: a recurring schedule's occurrence is acked
 * and its next one written under the same id in one step, only by the delivery holding the current
 * token. Declared by `describeTimeoutStoreContract`, so every store that runs the contract runs this too.
 */
export function describeAckNextContract(name: string, makeContext: () => Promise<StoreContractContext>): void {
  describe(`TimeoutStore contract, ackNext: ${name}`, () => {
    let context: StoreContractContext;
    let store: TimeoutStore;
    const slot: SlotRef = { topic: 'schedules', slot: 2 };
    const retryAtOnce = { maxAttempts: 16, backoff: { baseMs: 0, capMs: 0 } };

    storeContractFrame(makeContext, (made) => {
      context = made;
      store = made.store;
    });

    async function claimDue(id: string, leaseMs: number) {
      const now = await store.now();
      await store.writes.schedule(slot, id, { at: now - 5, payload: '{"n":1}' });
      return (await store.deliveries.claim(slot, 1, leaseMs, retryAtOnce)).claimed[0]!;
    }

    it('acks the current delivery and leaves the id pending at the next due time with the new payload, attempts reset', async () => {
      const claimed = await claimDue('nightly', LONG);
      const nextAt = (await store.now()) + LONG;
      expect(await store.deliveries.ackNext(slot, 'nightly', claimed.fencingToken, { dueAt: nextAt, payload: '{"n":2}' })).toBe('acked');
      expect(await store.reads.get(slot, 'nightly')).toMatchObject({ state: 'pending', dueAt: nextAt, attempt: 0, fencingToken: 0, payload: '{"n":2}' });
      expect(await store.deliveries.claim(slot, 1, LONG, retryAtOnce)).toMatchObject({ claimed: [], nextDueAt: nextAt });
    });

    it('a next occurrence already due is claimed again, as a fresh first attempt', async () => {
      const claimed = await claimDue('catch-up', LONG);
      const nextAt = (await store.now()) - 1;
      expect(await store.deliveries.ackNext(slot, 'catch-up', claimed.fencingToken, { dueAt: nextAt, payload: '{"n":2}' })).toBe('acked');
      const [again] = (await store.deliveries.claim(slot, 1, LONG, retryAtOnce)).claimed;
      expect(again).toMatchObject({ id: 'catch-up', dueAt: nextAt, attempt: 1, payload: '{"n":2}' });
      expect(again!.fencingToken).toBeGreaterThan(claimed.fencingToken);
    });

    it('changes nothing for a stale token: the delivery that holds the id now decides the next occurrence', async () => {
      const stale = await claimDue('hourly', SHORT);
      await context.advance(PAST_SHORT);
      const fresh = (await store.deliveries.claim(slot, 1, LONG, retryAtOnce)).claimed[0]!;
      const nextAt = (await store.now()) + LONG;
      expect(await store.deliveries.ackNext(slot, 'hourly', stale.fencingToken, { dueAt: nextAt, payload: '{"n":9}' })).toBe('stale');
      expect(await store.reads.get(slot, 'hourly')).toMatchObject({ state: 'firing', fencingToken: fresh.fencingToken, payload: '{"n":1}' });
      expect(await store.deliveries.ackNext(slot, 'hourly', fresh.fencingToken, { dueAt: nextAt, payload: '{"n":2}' })).toBe('acked');
      expect(await store.deliveries.ackNext(slot, 'hourly', fresh.fencingToken, { dueAt: nextAt + 1, payload: '{"n":3}' })).toBe('stale');
      expect(await store.reads.get(slot, 'hourly')).toMatchObject({ state: 'pending', dueAt: nextAt, payload: '{"n":2}' });
    });

    it('listFiring lists the leased ids of a slot by lease expiry, and no pending one', async () => {
      await store.writes.schedule(slot, 'later', { delayMs: LONG, payload: '"p"' });
      const first = await claimDue('first', SHORT);
      const second = await claimDue('second', LONG);
      const listed = await store.reads.listFiring(slot, 0, 10);
      expect(listed.map((entry) => entry.id)).toEqual(['first', 'second']);
      expect(listed[0]!.leaseExpiresAt).toBeLessThan(listed[1]!.leaseExpiresAt);
      expect(await store.reads.listFiring(slot, 1, 10)).toEqual([listed[1]]);
      await store.deliveries.ack(slot, 'first', first.fencingToken);
      await store.deliveries.ack(slot, 'second', second.fencingToken);
      expect(await store.reads.listFiring(slot, 0, 10)).toEqual([]);
    });

    it('writes nothing for an id that is pending, gone, or was cancelled (a removed schedule stays removed)', async () => {
      await store.writes.schedule(slot, 'waiting', { delayMs: LONG, payload: '"p"' });
      expect(await store.deliveries.ackNext(slot, 'waiting', 1, { dueAt: 1, payload: '"x"' })).toBe('stale');
      expect(await store.reads.get(slot, 'waiting')).toMatchObject({ state: 'pending', payload: '"p"' });
      expect(await store.deliveries.ackNext(slot, 'nobody', 1, { dueAt: 1, payload: '"x"' })).toBe('stale');
      expect(await store.reads.get(slot, 'nobody')).toBeNull();
    });
  });
}
