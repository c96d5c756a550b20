import { describe, expect, it } from '@jest/globals';
import type { TimeoutStore } from '../store/timeout-store.js';
import { resolveOptions } from '../validation/options.js';
import { TopicWorker } from './topic-worker.js';
import { engineContext } from '../../test/engine-context.js';

describe('TopicWorker release at shutdown', () => {
  it('counts the deliveries released in every slot, however the slots calls interleave', async () => {
    const options = resolveOptions({ connection: 'redis://unused', topics: { payment: {} } }).topics.get('payment')!;
    const store = {
      deliveries: { release: async (_slot: unknown, entries: readonly unknown[]) => ({ released: entries.length, forwarded: [] }) },
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
