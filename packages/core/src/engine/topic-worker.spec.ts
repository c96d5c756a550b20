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

describe('TopicWorker cancel notice after the handler returned', () => {
  /** A worker whose store holds every ack and failure record until the test answers it (as stale: the cancel won). */
  function heldWorker(handler: () => void) {
    const options = resolveOptions({ connection: 'redis://unused', topics: { payment: {} } }).topics.get('payment')!;
    const answers: (() => void)[] = [];
    const store = {
      deliveries: {
        ackMany: (_slot: unknown, deliveries: readonly unknown[]) => new Promise((resolve) => answers.push(() => resolve(deliveries.map(() => 'stale')))),
        fail: () => new Promise((resolve) => answers.push(() => resolve({ outcome: 'stale' }))),
      },
    } as unknown as TimeoutStore;
    const warnings: string[] = [];
    const logger = { log: () => undefined, warn: (message: string) => warnings.push(message), error: () => undefined };
    const context = engineContext(store, options.slots, { logger });
    const events: string[] = [];
    context.events.on('stale', ({ id }) => events.push(`stale ${id}`));
    context.events.on('fired', ({ id }) => events.push(`fired ${id}`));
    context.events.on('retried', ({ id }) => events.push(`retried ${id}`));
    const worker = new TopicWorker(context, 'payment', options, handler);
    const claim = { incidents: [], now: 0, nextDueAt: null, recovered: 0, nextLeaseExpiresAt: null };
    worker.dispatch(0, { ...claim, claimed: [{ id: 'a', dueAt: 0, scheduledAt: 0, attempt: 1, fencingToken: 7, payload: 'null' }] });
    return { worker, answers, events, warnings };
  }

  it.each([
    ['returned', () => undefined],
    ['threw', () => {
      throw new Error('boom');
    }],
  ])('ends a delivery whose handler %s, its record not yet stored, with no stale event when the notice comes', async (_, handler) => {
    const { worker, answers, events, warnings } = heldWorker(handler);
    await waitFor(() => answers.length === 1);
    // The cancel's notice (its token) arrives while the ack or failure record is out: the store will refuse it.
    expect(worker.cancelRunning('a', 7)).toBe(true);
    answers[0]!();
    await worker.idle();
    expect(events).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('still reports a refused ack as stale when no cancel notice came (a newer delivery owns the timeout)', async () => {
    const { worker, answers, events, warnings } = heldWorker(() => undefined);
    await waitFor(() => answers.length === 1);
    expect(worker.cancelRunning('a', 8)).toBe(false);
    answers[0]!();
    await worker.idle();
    expect(events).toEqual(['stale a']);
    expect(warnings).toHaveLength(1);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let turn = 0; !condition(); turn++) {
    if (turn > 500) throw new Error('waited too long');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
