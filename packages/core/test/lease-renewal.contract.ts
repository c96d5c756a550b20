/// <reference types="jest" />
import { bucketOf } from '../src/store/slot-of.js';
import type { SlotRef, TimeoutStore } from '../src/store/timeout-store.js';
import { storeContractFrame } from './contract-frame.js';
import type { StoreContractContext } from './timeout-store.contract.js';

const LONG = 60_000;
/** A lease that ends within the test; long enough that a loaded machine does not outrun it. */
const SHORT = 150;
/** Store time to let pass so that `SHORT` has surely ended. */
const PAST_SHORT = 200;

/**
 * `renewLeases`, as every `TimeoutStore` must implement it: a running delivery keeps its timeout
 * while its token is current, and a renewal never helps a stale one. Declared by
 * `describeTimeoutStoreContract`, so every store that runs the contract runs this too.
 */
export function describeLeaseRenewalContract(name: string, makeContext: () => Promise<StoreContractContext>): void {
  describe(`TimeoutStore contract, lease renewal: ${name}`, () => {
    let context: StoreContractContext;
    let store: TimeoutStore;
    const slot: SlotRef = { topic: 'payment', slot: 11 };
    const retryAtOnce = { maxAttempts: 16, backoff: { baseMs: 0, capMs: 0 } };

    storeContractFrame(makeContext, (made) => {
      context = made;
      store = made.store;
    });

    async function claimDue(ids: readonly string[], leaseMs: number) {
      const now = await store.now();
      await store.writes.scheduleMany(slot, ids.map((id) => ({ id, entry: { at: now - 5, payload: '"p"' } })));
      return (await store.deliveries.claim(slot, ids.length, leaseMs, retryAtOnce)).claimed;
    }

    it('raises the lease of current deliveries to now + leaseMs, so no claim takes them back while it holds', async () => {
      const [running] = await claimDue(['r'], SHORT);
      const before = await store.now();
      const [renewed] = await store.deliveries.renewLeases(slot, [{ id: 'r', fencingToken: running!.fencingToken, leaseMs: LONG }]);
      expect(renewed).toEqual({ leaseExpiresAt: expect.any(Number) });
      const leaseExpiresAt = (renewed as { leaseExpiresAt: number }).leaseExpiresAt;
      expect(leaseExpiresAt).toBeGreaterThanOrEqual(before + LONG);
      expect(await store.reads.get(slot, 'r')).toMatchObject({ state: 'firing', leaseExpiresAt, fencingToken: running!.fencingToken, attempt: 1 });
      await context.advance(PAST_SHORT);
      const next = await store.deliveries.claim(slot, 10, LONG, retryAtOnce);
      expect(next.claimed).toEqual([]);
      expect(next.incidents).toEqual([]);
      expect(next.nextLeaseExpiresAt).toBe(leaseExpiresAt);
      expect(await store.deliveries.ack(slot, 'r', running!.fencingToken)).toBe('acked');
    });

    it('never lowers a lease', async () => {
      const [running] = await claimDue(['n'], LONG);
      const leaseBefore = (await store.reads.get(slot, 'n'))!.leaseExpiresAt!;
      const [renewed] = await store.deliveries.renewLeases(slot, [{ id: 'n', fencingToken: running!.fencingToken, leaseMs: 10 }]);
      expect(renewed).toEqual({ leaseExpiresAt: leaseBefore });
      expect((await store.reads.get(slot, 'n'))!.leaseExpiresAt).toBe(leaseBefore);
    });

    it('refuses stale tokens: re-claimed after the lease ended, rescheduled, acked, pending, token 0, unknown', async () => {
      const claimed = await claimDue(['e', 's', 'a'], SHORT);
      const [expired, rescheduled, acked] = ['e', 's', 'a'].map((id) => claimed.find((entry) => entry.id === id));
      await store.writes.schedule(slot, 's', { delayMs: LONG, payload: 'null' });
      expect(await store.deliveries.ack(slot, 'a', acked!.fencingToken)).toBe('acked');
      await store.writes.schedule(slot, 'pending', { delayMs: LONG, payload: 'null' });
      await context.advance(PAST_SHORT);
      const again = (await store.deliveries.claim(slot, 10, LONG, retryAtOnce)).claimed;
      expect(again.map((entry) => entry.id)).toEqual(['e']);
      const results = await store.deliveries.renewLeases(slot, [
        { id: 'e', fencingToken: expired!.fencingToken, leaseMs: LONG },
        { id: 's', fencingToken: rescheduled!.fencingToken, leaseMs: LONG },
        { id: 'a', fencingToken: acked!.fencingToken, leaseMs: LONG },
        { id: 'pending', fencingToken: 0, leaseMs: LONG },
        { id: 'unknown', fencingToken: 12345, leaseMs: LONG },
        { id: 'e', fencingToken: again[0]!.fencingToken, leaseMs: LONG },
      ]);
      expect(results.slice(0, 5)).toEqual(['stale', 'stale', 'stale', 'stale', 'stale']);
      expect(results[5]).toEqual({ leaseExpiresAt: expect.any(Number) });
      expect(await store.reads.get(slot, 's')).toMatchObject({ state: 'pending' });
      expect(await store.reads.get(slot, 'pending')).toMatchObject({ state: 'pending' });
    });

    it('renews a lease that ended but that no claim has recovered yet (its ack would still be accepted)', async () => {
      const [running] = await claimDue(['late'], SHORT);
      await context.advance(PAST_SHORT);
      const [renewed] = await store.deliveries.renewLeases(slot, [{ id: 'late', fencingToken: running!.fencingToken, leaseMs: LONG }]);
      expect(renewed).toEqual({ leaseExpiresAt: expect.any(Number) });
      expect((await store.deliveries.claim(slot, 10, LONG, retryAtOnce)).claimed).toEqual([]);
    });

    it('renews many of one slot in one call, in any number of data buckets', async () => {
      const ids: string[] = [];
      for (let i = 0; new Set(ids.map((id) => bucketOf(id))).size < 12; i++) ids.push(`many-${i}`);
      const claimed = await claimDue(ids, SHORT);
      expect(claimed).toHaveLength(ids.length);
      const results = await store.deliveries.renewLeases(slot, claimed.map(({ id, fencingToken }) => ({ id, fencingToken, leaseMs: LONG })));
      expect(results.every((result) => typeof result === 'object' && 'leaseExpiresAt' in result)).toBe(true);
      await context.advance(PAST_SHORT);
      expect((await store.deliveries.claim(slot, 100, LONG, retryAtOnce)).incidents).toEqual([]);
      expect(await store.deliveries.renewLeases(slot, [])).toEqual([]);
    });
  });
}
