import { describe, expect, it } from '@jest/globals';
import type { OrdersClient } from '../http/orders-client.js';
import type { OrderView } from '../report/order-view.js';
import { OrderTracker } from './order-tracker.js';

function fakeClient(statuses: Map<string, string | undefined>) {
  const reads: string[] = [];
  const client = {
    getOrder: async (id: string): Promise<OrderView | undefined> => {
      reads.push(id);
      await new Promise((resolve) => setImmediate(resolve));
      const status = statuses.get(id);
      return status ? { id, status, createdAt: 0, paymentDueAt: 0, transitions: [] } : undefined;
    },
  } as unknown as OrdersClient;
  return { client, reads };
}

function track(tracker: OrderTracker, id: string, paymentDueAt: number): void {
  tracker.track({ id, paymentDueAt, paidOnTime: false, lastStatus: 'PENDING_PAYMENT' });
}

describe('OrderTracker', () => {
  it('knows the first and last deadline of its orders', () => {
    const tracker = new OrderTracker(fakeClient(new Map()).client);
    track(tracker, 'b', 5000);
    track(tracker, 'a', 3000);
    track(tracker, 'c', 4000);
    expect(tracker.firstDeadline).toBe(3000);
    expect(tracker.lastDeadline).toBe(5000);
  });

  it('polls only orders not yet final, and keeps the last status when a read fails', async () => {
    const statuses = new Map<string, string | undefined>([
      ['a', 'PAYMENT_TIMEOUT'],
      ['b', 'PENDING_PAYMENT'],
      ['c', undefined],
    ]);
    const { client, reads } = fakeClient(statuses);
    const tracker = new OrderTracker(client);
    for (const id of ['a', 'b', 'c']) track(tracker, id, 1000);

    expect(await tracker.poll()).toEqual({ created: 3, pending: 2, paid: 0, timedOut: 1 });
    statuses.set('b', 'CONFIRMED');
    reads.length = 0;
    expect(await tracker.poll()).toEqual({ created: 3, pending: 1, paid: 1, timedOut: 1 });
    expect(reads.sort()).toEqual(['b', 'c']);
  });

  it('joins a running poll, and a fresh poll starts after it', async () => {
    const { client, reads } = fakeClient(new Map([['a', 'PENDING_PAYMENT']]));
    const tracker = new OrderTracker(client);
    track(tracker, 'a', 1000);
    const first = tracker.poll();
    expect(tracker.busy).toBe(true);
    const joined = tracker.poll();
    const fresh = tracker.freshPoll();
    await Promise.all([first, joined, fresh]);
    expect(reads).toEqual(['a', 'a']);
    expect(tracker.busy).toBe(false);
  });
});
