import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import { nextEvent, uniquePrefix, engineSuite } from './fixtures/engine-helpers.js';

let server: RedisServer;
const rig = engineSuite(() => RedisServer.start(), (started) => (server = started));
const realNow = Date.now.bind(Date);

afterEach(() => {
  jest.restoreAllMocks();
});

describe('due times come from the Redis clock', () => {
  it.each([
    ['5 minutes ahead', 5 * 60_000],
    ['5 minutes behind', -5 * 60_000],
  ])('an application clock %s fires neither early nor late', async (_name, skewMs) => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: { slots: 2 } } });
    const startedAt: number[] = [];
    timeouts.handle('payment', () => {
      startedAt.push(realNow());
    });
    jest.spyOn(Date, 'now').mockImplementation(() => realNow() + skewMs);
    await timeouts.start();
    const fired = nextEvent(timeouts, 'fired');
    const scheduledAt = realNow();
    const { dueAt } = await timeouts.schedule('payment', 'order-1', { delayMs: 300 });
    // The local server shares this machine's real clock: the due time is real time + 300 ms (plus
    // the time the call took), nowhere near the skew.
    expect(dueAt - scheduledAt).toBeGreaterThanOrEqual(300);
    expect(dueAt - scheduledAt).toBeLessThan(300 + Math.abs(skewMs) / 10);
    const event = await fired;
    expect(startedAt[0]!).toBeGreaterThanOrEqual(dueAt - 2);
    expect(startedAt[0]! - dueAt).toBeLessThan(Math.abs(skewMs) / 10);
    expect(event.latenessMs).toBeLessThan(Math.abs(skewMs) / 10);
  });
});

describe('wake-ups across instances', () => {
  it('a schedule from another instance wakes a poller sleeping on a long sweep', async () => {
    const prefix = uniquePrefix();
    const sweepIntervalMs = 60_000;
    const worker = rig.open({ connection: server.url, prefix, topics: { payment: { slots: 1 } }, sweepIntervalMs });
    worker.handle('payment', () => undefined);
    await worker.start();
    const scheduler = rig.open({ connection: server.url, prefix, topics: { payment: { slots: 1 } } });
    // A first fire proves the poller has claimed since: with the slot now empty it sleeps for the sweep.
    const warm = nextEvent(worker, 'fired', (event) => event.id === 'warm-up');
    await scheduler.schedule('payment', 'warm-up', { delayMs: 0 });
    await warm;
    const fired = nextEvent(worker, 'fired', (event) => event.id === 'order-1', sweepIntervalMs / 2);
    const scheduledAt = Date.now();
    const { dueAt } = await scheduler.schedule('payment', 'order-1', { delayMs: 200 });
    await fired;
    const elapsed = Date.now() - scheduledAt;
    expect(elapsed).toBeLessThan(sweepIntervalMs / 2);
    expect(Date.now()).toBeGreaterThanOrEqual(dueAt);
  });
});
