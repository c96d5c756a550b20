import { afterEach, describe, expect, it } from '@jest/globals';
import { DurableTimeouts } from '../durable-timeouts.js';
import { MemoryTimeoutStore } from '../testing/memory-timeout-store.js';
import type { TopicLayout } from '../store/timeout-store.js';

/** A memory store whose recording of a topic's slot count waits until `release` is called. */
class HeldLayoutStore extends MemoryTimeoutStore {
  release!: () => void;
  claimed = false;

  constructor() {
    super();
    const claimLayout = this.layout.claimLayout.bind(this.layout);
    const held = new Promise<void>((resolve) => (this.release = resolve));
    this.layout.claimLayout = async (topic: string, slots: number): Promise<TopicLayout> => {
      this.claimed = true;
      await held;
      return claimLayout(topic, slots);
    };
  }
}

let timeouts: DurableTimeouts | undefined;

afterEach(async () => {
  await timeouts?.stop({ drainMs: 0 });
  timeouts = undefined;
});

/** Whether `promise` settles before the next turn of the event loop (the memory store answers without timers). */
async function settlesNow(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('which calls wait for a recording of the slot count under way', () => {
  it('counts, lists and dead-letter actions wait only for the init; get and cancel wait for the recording', async () => {
    const store = new HeldLayoutStore();
    timeouts = new DurableTimeouts({ store, logger: null, topics: { payment: { slots: 4 } } });
    const scheduled = timeouts.schedule('payment', 'order-1', { delayMs: 60_000 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.claimed).toBe(true);

    expect(await settlesNow(timeouts.stats('payment'))).toBe(true);
    expect(await settlesNow(timeouts.slotStats('payment'))).toBe(true);
    expect(await settlesNow(timeouts.listPending('payment'))).toBe(true);
    expect(await settlesNow(timeouts.listDead('payment'))).toBe(true);
    expect(await settlesNow(timeouts.replayDead('payment'))).toBe(true);
    expect(await settlesNow(timeouts.purgeDead('payment'))).toBe(true);

    const got = timeouts.get('payment', 'order-1');
    const cancelled = timeouts.cancel('payment', 'order-1');
    expect(await settlesNow(got)).toBe(false);
    expect(await settlesNow(cancelled)).toBe(false);

    store.release();
    await scheduled;
    // In call order: the get sees the timeout, then the cancel removes it.
    expect(await got).toMatchObject({ id: 'order-1', state: 'pending' });
    expect(await cancelled).toBe('cancelled');
  });
});
