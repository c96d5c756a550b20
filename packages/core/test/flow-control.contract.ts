/// <reference types="jest" />
import { LATE_ERROR } from '../src/store/stored-error.js';
import type { LatePolicy, SlotRef, TimeoutStore } from '../src/store/timeout-store.js';
import { storeContractFrame } from './contract-frame.js';
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
  });
}
