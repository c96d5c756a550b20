import { describe, expect, it, jest } from '@jest/globals';
import type { AckEntry, SlotRef, TimeoutStore } from '../store/timeout-store.js';
import { AckBatcher, type AckOutcome } from './ack-batcher.js';
import type { EngineContext } from './engine-context.js';
import { TimeoutDelivery } from './timeout-delivery.js';
import { engineContext } from '../../test/engine-context.js';

const SLOT: SlotRef = { topic: 'payment', slot: 0 };

/** A store that records each ackMany call and accepts every entry. */
function recordingContext(): { context: EngineContext; calls: string[][] } {
  const calls: string[][] = [];
  const store = {
    deliveries: {
      ackMany: async (_slot: SlotRef, entries: readonly AckEntry[]) => {
        calls.push(entries.map((entry) => entry.id));
        return entries.map(() => 'acked' as const);
      },
    },
  } as unknown as TimeoutStore;
  const context = engineContext(store);
  return { context, calls };
}

function delivery(id: string): TimeoutDelivery {
  return new TimeoutDelivery('payment', 0, { id, dueAt: 0, scheduledAt: 0, attempt: 1, fencingToken: 1, payload: '1' }, 1);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('AckBatcher', () => {
  it('sends what finishes within the linger in one call', async () => {
    // Fake timers: on a loaded machine a real 5 ms sleep can outlast the 40 ms linger.
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const { context, calls } = recordingContext();
      const settled: [string, AckOutcome][] = [];
      const batcher = new AckBatcher(context, SLOT, 40);
      const add = (id: string) => void batcher.add(delivery(id), true).then(({ outcome }) => settled.push([id, outcome]));
      add('a');
      await jest.advanceTimersByTimeAsync(5);
      add('b');
      add('c');
      await jest.advanceTimersByTimeAsync(34);
      expect(calls).toEqual([]);
      await jest.advanceTimersByTimeAsync(2);
      expect(calls).toEqual([['a', 'b', 'c']]);
      await jest.advanceTimersByTimeAsync(0);
      expect(settled).toEqual([
        ['a', 'accepted'],
        ['b', 'accepted'],
        ['c', 'accepted'],
      ]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('sends what waits at once, within the same turn, when the slot claims (flushWithClaim), and nothing more at the end of the linger', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const { context, calls } = recordingContext();
      const batcher = new AckBatcher(context, SLOT, 40);
      batcher.flushWithClaim();
      expect(calls).toEqual([]);
      void batcher.add(delivery('a'), true);
      void batcher.add(delivery('b'), true);
      await jest.advanceTimersByTimeAsync(5);
      batcher.flushWithClaim();
      // Synchronously: the call is made in the claim's turn, so the store can send both together.
      expect(calls).toEqual([['a', 'b']]);
      await jest.advanceTimersByTimeAsync(60);
      expect(calls).toEqual([['a', 'b']]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps one ack call of the slot in flight when flushWithClaim comes after an add that was to go on the next turn', async () => {
    let inFlight = 0;
    let most = 0;
    const release: (() => void)[] = [];
    const store = {
      deliveries: {
        ackMany: async (_slot: SlotRef, entries: readonly AckEntry[]) => {
          most = Math.max(most, ++inFlight);
          await new Promise<void>((resolve) => release.push(resolve));
          inFlight--;
          return entries.map(() => 'acked' as const);
        },
      },
    } as unknown as TimeoutStore;
    const batcher = new AckBatcher(engineContext(store), SLOT, 40);
    const first = batcher.add(delivery('a'), false);
    batcher.flushWithClaim();
    const second = batcher.add(delivery('b'), true);
    // The turn ends: the next-turn flush that 'a' asked for runs while its call is still out.
    await new Promise((resolve) => setImmediate(resolve));
    expect(most).toBe(1);
    release.shift()!();
    await first;
    await new Promise((resolve) => setTimeout(resolve, 60));
    release.shift()?.();
    await second;
    expect(most).toBe(1);
  });

  it('sends on the next turn of the event loop when told not to linger', async () => {
    const { context, calls } = recordingContext();
    const batcher = new AckBatcher(context, SLOT, 10_000);
    void batcher.add(delivery('a'), false);
    await new Promise((resolve) => setImmediate(resolve));
    await sleep(1);
    expect(calls).toEqual([['a']]);
  });

  it('flushSoon cuts a linger short', async () => {
    const { context, calls } = recordingContext();
    const batcher = new AckBatcher(context, SLOT, 10_000);
    void batcher.add(delivery('a'), true);
    void batcher.add(delivery('b'), true);
    batcher.flushSoon();
    await sleep(5);
    expect(calls).toEqual([['a', 'b']]);
  });
});
