import { describe, expect, it } from '@jest/globals';
import type { TimeoutStore } from '../store/timeout-store.js';
import { resolveOptions } from '../validation/options.js';
import type { SlotPoller } from './slot-poller.js';
import { TopicWorker } from './topic-worker.js';
import { engineContext } from '../../test/engine-context.js';

/** A worker of topic `payment` with 16 slots; reserve() needs no store. */
function worker(concurrency: number, batchSize: number): TopicWorker {
  const options = resolveOptions({ connection: 'redis://unused', topics: { payment: { concurrency, batchSize } } }).topics.get('payment')!;
  const store = {} as TimeoutStore;
  const context = engineContext(store, options.slots);
  return new TopicWorker(context, 'payment', options, () => undefined);
}

/** Reserves for `poller` as its next claim asking for `wanted`. */
function reserveFor(topic: TopicWorker, poller: SlotPoller, wanted: number): number {
  poller.wanted = wanted;
  return topic.reserve(poller);
}

describe('TopicWorker claim reservations', () => {
  it('parks a poller asking for a full batch once claims out hold the capacity', () => {
    const topic = worker(256, 100);
    const [a, b, c] = topic.pollers;
    expect(reserveFor(topic, a!, 100)).toBe(100);
    expect(reserveFor(topic, b!, 100)).toBe(100);
    // 56 left, below a useful batch (a quarter of 256): parked until a claim comes back.
    expect(reserveFor(topic, c!, 100)).toBe(0);
    topic.unreserve(100);
    expect(reserveFor(topic, c!, 100)).toBe(100);
  });

  it('lets every slot of a trickle claim at once: small batches do not park each other', () => {
    const topic = worker(256, 100);
    const limits = topic.pollers.map((poller) => reserveFor(topic, poller, 16));
    expect(limits).toEqual(Array.from({ length: 16 }, () => 16));
  });

  it('never reserves more than the concurrency', () => {
    const topic = worker(40, 100);
    const limits = topic.pollers.slice(0, 4).map((poller) => reserveFor(topic, poller, 16));
    // 8 left after two claims: below a useful batch (a quarter of 40), so the others wait.
    expect(limits).toEqual([16, 16, 0, 0]);
    topic.unreserve(16);
    expect(reserveFor(topic, topic.pollers[2]!, 100)).toBe(24);
  });
});

describe('TopicWorker release at shutdown', () => {
  it('counts the deliveries released in every slot, however the slots calls interleave', async () => {
    const options = resolveOptions({ connection: 'redis://unused', topics: { payment: {} } }).topics.get('payment')!;
    const store = {
      release: async (_slot: unknown, entries: readonly unknown[]) => ({ released: entries.length, forwarded: [] }),
    } as unknown as TimeoutStore;
    const context = engineContext(store, options.slots);
    const released: number[] = [];
    context.events.on('released', ({ count }) => released.push(count));
    // Handlers that never finish: the shutdown releases them, one store call per slot.
    const topic = new TopicWorker(context, 'payment', options, () => new Promise<void>(() => undefined));
    const claimed = (id: string) => ({ id, dueAt: 0, scheduledAt: 0, attempt: 1, fencingToken: 1, payload: 'null' });
    const claim = { incidents: [], now: 0, nextDueAt: null, recovered: 0, nextLeaseExpiresAt: null };
    topic.dispatch(0, { ...claim, claimed: [claimed('a'), claimed('b')] });
    topic.dispatch(1, { ...claim, claimed: [claimed('c')] });
    topic.dispatch(2, { ...claim, claimed: [claimed('d')] });
    await topic.releaseRunning(new Error('drain'));
    expect(released).toEqual([4]);
  });
});
