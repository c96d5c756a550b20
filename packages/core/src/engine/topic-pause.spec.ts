import { describe, expect, it } from '@jest/globals';
import { MemoryTimeoutStore } from '../testing/memory-timeout-store.js';
import type { TopicLayout } from '../store/timeout-store.js';
import { TopicPause } from './topic-pause.js';
import { engineContext } from '../../test/engine-context.js';

describe('TopicPause while a slot migration begins', () => {
  it('pauses the slots a migration adds even when a layout read begun before the migration is still out when it checks', async () => {
    const store = new MemoryTimeoutStore();
    await store.layout.claimLayout('payment', 2);
    const context = engineContext(store, 2);
    await context.layouts.refresh('payment');
    // A read of the layout (a wake-up's refresh, say) begun before the migration is recorded, and
    // slow to answer: it answers the layout of its start.
    const readLayout = store.layout.readLayout.bind(store.layout);
    let slowRead: Promise<TopicLayout | null> | undefined;
    store.layout.readLayout = (topic: string) => slowRead ?? readLayout(topic);
    const pauseSlot = store.reads.pause.bind(store.reads);
    let begun = false;
    store.reads.pause = async (ref, since) => {
      if (!begun) {
        begun = true;
        const before = await readLayout('payment');
        slowRead = new Promise((resolve) => setTimeout(() => resolve(before), 20));
        context.layouts.refreshSoon('payment');
        slowRead = undefined;
        await store.layout.beginMigration('payment', 2, 4);
      }
      return pauseSlot(ref, since);
    };

    const state = await new TopicPause(context, () => undefined).pause('payment');
    expect(state.paused).toBe(true);
    for (let slot = 0; slot < 4; slot++) expect((await store.reads.pauseState({ topic: 'payment', slot })).pausedAt).not.toBeNull();
  });
});
