/// <reference types="jest" />
import type { SlotRef, TimeoutStore } from '../src/store/timeout-store.js';
import { storeContractFrame } from './contract-frame.js';
import type { StoreContractContext } from './timeout-store.contract.js';

const LONG = 60_000;

/**
 * The `ifExists` modes of `schedule` (replace, keep, earlier, later) against absent, pending,
 * firing and dead timeouts, as every `TimeoutStore` must implement them. Declared by
 * `describeTimeoutStoreContract`, so every store that runs the contract runs this too.
 */
export function describeScheduleModesContract(name: string, makeContext: () => Promise<StoreContractContext>): void {
  describe(`TimeoutStore contract, schedule modes: ${name}`, () => {
    let store: TimeoutStore;
    const slot: SlotRef = { topic: 'payment', slot: 6 };

    storeContractFrame(makeContext, (made) => (store = made.store));

    /** Schedules `id` due already and claims it: returns the running delivery. */
    async function firing(id: string, payload = '"running"') {
      const dueAt = (await store.now()) - 10;
      await store.writes.schedule(slot, id, { at: dueAt, payload });
      const claimed = (await store.deliveries.claim(slot, 10, LONG)).claimed.find((entry) => entry.id === id)!;
      expect(claimed).toMatchObject({ id, dueAt });
      return claimed;
    }

    /** Schedules `id`, claims it and records a failure on its only attempt: a dead letter. */
    async function dead(id: string): Promise<void> {
      const running = await firing(id);
      await store.deliveries.fail(slot, id, running.fencingToken, { error: 'boom', retryDelayMs: 0, maxAttempts: 1 });
      expect((await store.reads.get(slot, id))!.state).toBe('dead');
    }

    it('creates an absent timeout in every mode', async () => {
      for (const ifExists of ['replace', 'keep', 'earlier', 'later'] as const) {
        const now = await store.now();
        const result = await store.writes.schedule(slot, `absent-${ifExists}`, { at: now + LONG, payload: '"new"', ifExists });
        expect(result).toEqual({ outcome: 'created', dueAt: now + LONG });
        expect(await store.reads.get(slot, `absent-${ifExists}`)).toMatchObject({ state: 'pending', dueAt: now + LONG, payload: '"new"' });
      }
    });

    it('keep: a pending timeout stays as it is (due time and payload), and the call says when it is due', async () => {
      const first = await store.writes.schedule(slot, 'k', { delayMs: LONG, payload: '"first"', ifExists: 'keep' });
      const again = await store.writes.schedule(slot, 'k', { delayMs: 2 * LONG, payload: '"second"', ifExists: 'keep' });
      expect(again).toEqual({ outcome: 'kept', dueAt: first.dueAt });
      const earlier = await store.writes.schedule(slot, 'k', { at: (await store.now()) + 5, payload: '"third"', ifExists: 'keep' });
      expect(earlier).toEqual({ outcome: 'kept', dueAt: first.dueAt });
      expect(await store.reads.get(slot, 'k')).toMatchObject({ state: 'pending', dueAt: first.dueAt, payload: '"first"', attempt: 0 });
    });

    it('keep: a firing timeout stays as it is and its delivery stays current (its ack is accepted)', async () => {
      const running = await firing('kf');
      const result = await store.writes.schedule(slot, 'kf', { delayMs: LONG, payload: '"retry"', ifExists: 'keep' });
      expect(result).toEqual({ outcome: 'kept_firing', dueAt: running.dueAt });
      expect(await store.reads.get(slot, 'kf')).toMatchObject({ state: 'firing', fencingToken: running.fencingToken, payload: '"running"' });
      expect(await store.deliveries.ack(slot, 'kf', running.fencingToken)).toBe('acked');
      expect(await store.reads.get(slot, 'kf')).toBeNull();
    });

    it('every mode replaces a dead letter, as if there were none', async () => {
      for (const ifExists of ['keep', 'earlier', 'later'] as const) {
        const id = `dead-${ifExists}`;
        await dead(id);
        const result = await store.writes.schedule(slot, id, { delayMs: LONG, payload: '"fresh"', ifExists });
        expect(result.outcome).toBe('created');
        expect(await store.reads.get(slot, id)).toMatchObject({ state: 'pending', attempt: 0, payload: '"fresh"' });
      }
      expect((await store.reads.stats(slot)).dead).toBe(0);
    });

    it('earlier: replaces a pending timeout only with an earlier due time (an equal one keeps it)', async () => {
      const now = await store.now();
      await store.writes.schedule(slot, 'e', { at: now + LONG, payload: '"a"' });
      expect(await store.writes.schedule(slot, 'e', { at: now + 2 * LONG, payload: '"b"', ifExists: 'earlier' })).toEqual({ outcome: 'kept', dueAt: now + LONG });
      expect(await store.writes.schedule(slot, 'e', { at: now + LONG, payload: '"c"', ifExists: 'earlier' })).toEqual({ outcome: 'kept', dueAt: now + LONG });
      expect(await store.writes.schedule(slot, 'e', { at: now + LONG - 1, payload: '"d"', ifExists: 'earlier' })).toEqual({ outcome: 'replaced', dueAt: now + LONG - 1 });
      expect(await store.reads.get(slot, 'e')).toMatchObject({ state: 'pending', dueAt: now + LONG - 1, payload: '"d"' });
    });

    it('later: replaces a pending timeout only with a later due time (an equal one keeps it)', async () => {
      const now = await store.now();
      await store.writes.schedule(slot, 'l', { at: now + LONG, payload: '"a"' });
      expect(await store.writes.schedule(slot, 'l', { at: now + LONG - 1, payload: '"b"', ifExists: 'later' })).toEqual({ outcome: 'kept', dueAt: now + LONG });
      expect(await store.writes.schedule(slot, 'l', { at: now + LONG, payload: '"c"', ifExists: 'later' })).toEqual({ outcome: 'kept', dueAt: now + LONG });
      expect(await store.writes.schedule(slot, 'l', { at: now + 2 * LONG, payload: '"d"', ifExists: 'later' })).toEqual({ outcome: 'replaced', dueAt: now + 2 * LONG });
      expect(await store.reads.get(slot, 'l')).toMatchObject({ state: 'pending', dueAt: now + 2 * LONG, payload: '"d"' });
    });

    it('later: a delay from now pushes a firing timeout (its due time passed): replaced_firing, the running delivery is stale', async () => {
      const running = await firing('lf');
      const result = await store.writes.schedule(slot, 'lf', { delayMs: LONG, payload: '"extended"', ifExists: 'later' });
      expect(result.outcome).toBe('replaced_firing');
      expect(await store.reads.get(slot, 'lf')).toMatchObject({ state: 'pending', attempt: 0, dueAt: result.dueAt, payload: '"extended"' });
      expect(await store.deliveries.ack(slot, 'lf', running.fencingToken)).toBe('stale');
    });

    it('earlier: a firing timeout is kept unless the new due time is before the running delivery\'s', async () => {
      const running = await firing('ef');
      expect(await store.writes.schedule(slot, 'ef', { delayMs: 0, payload: '"now"', ifExists: 'earlier' })).toEqual({ outcome: 'kept_firing', dueAt: running.dueAt });
      expect(await store.writes.schedule(slot, 'ef', { at: running.dueAt, payload: '"same"', ifExists: 'earlier' })).toEqual({ outcome: 'kept_firing', dueAt: running.dueAt });
      const result = await store.writes.schedule(slot, 'ef', { at: running.dueAt - 1, payload: '"before"', ifExists: 'earlier' });
      expect(result).toEqual({ outcome: 'replaced_firing', dueAt: running.dueAt - 1 });
      expect(await store.deliveries.ack(slot, 'ef', running.fencingToken)).toBe('stale');
      expect(await store.reads.get(slot, 'ef')).toMatchObject({ state: 'pending', payload: '"before"' });
    });

    it('applies calls on one id made in the same tick in order, each with its own mode', async () => {
      const now = await store.now();
      const calls = [
        store.writes.schedule(slot, 't', { at: now + LONG, payload: '"1"', ifExists: 'keep' }),
        store.writes.schedule(slot, 't', { at: now + 3 * LONG, payload: '"2"', ifExists: 'keep' }),
        store.writes.schedule(slot, 't', { at: now + 2 * LONG, payload: '"3"', ifExists: 'later' }),
        store.writes.schedule(slot, 't', { at: now + 3 * LONG, payload: '"4"', ifExists: 'earlier' }),
        store.writes.schedule(slot, 't', { at: now + 4 * LONG, payload: '"5"' }),
      ];
      expect((await Promise.all(calls)).map((result) => result.outcome)).toEqual(['created', 'kept', 'replaced', 'kept', 'replaced']);
      expect(await store.reads.get(slot, 't')).toMatchObject({ dueAt: now + 4 * LONG, payload: '"5"' });
    });
  });
}
