import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { RedisServer } from '@durable-timeout/redis-testing';
import type { TimeoutEvent } from '../src/types.js';
import { EngineRig, nextEvent, uniquePrefix, waitUntil } from './fixtures/engine-helpers.js';

let server: RedisServer;
const rig = new EngineRig();

beforeAll(async () => {
  server = await RedisServer.start();
});

afterEach(async () => {
  await rig.stopAll();
});

afterAll(async () => {
  await server?.stop();
});

describe('DurableTimeouts on one Redis server', () => {
  it('schedules, fires once with the payload and acks (the timeout is gone)', async () => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: { slots: 4 } } });
    const fired: TimeoutEvent<{ amount: number }>[] = [];
    timeouts.handle<{ amount: number }>('payment', (event) => {
      fired.push(event);
    });
    await timeouts.start();
    const acked = nextEvent(timeouts, 'fired');
    const scheduled = await timeouts.schedule('payment', 'order-1', { delayMs: 150, payload: { amount: 42 } });
    expect(scheduled).toMatchObject({ topic: 'payment', id: 'order-1', outcome: 'created' });
    const firedEvent = await acked;
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ id: 'order-1', payload: { amount: 42 }, attempt: 1, dueAt: scheduled.dueAt });
    expect(fired[0]!.fencingToken).toBeGreaterThan(0);
    expect(firedEvent).toMatchObject({ topic: 'payment', id: 'order-1', attempt: 1, dueAt: scheduled.dueAt });
    expect(firedEvent.latenessMs).toBeGreaterThanOrEqual(0);
    expect(await timeouts.get('payment', 'order-1')).toBeNull();
    const stats = await timeouts.stats('payment');
    expect(stats).toMatchObject({ pending: 0, firing: 0, dead: 0 });
  });

  it('upsert: the last schedule wins for due time and payload, and fires once', async () => {
    const timeouts = rig.open({ connection: server.url, prefix: uniquePrefix(), topics: { payment: {} } });
    const fired: TimeoutEvent[] = [];
    timeouts.handle('payment', (event) => {
      fired.push(event);
    });
    await timeouts.start();
    await timeouts.schedule('payment', 'order-1', { delayMs: 60_000, payload: 'first' });
    const second = await timeouts.schedule('payment', 'order-1', { delayMs: 100, payload: 'second' });
    expect(second.outcome).toBe('replaced');
    await waitUntil(() => fired.length === 1, 5_000, 'fire');
    expect(fired[0]).toMatchObject({ payload: 'second', dueAt: second.dueAt });
    expect(await timeouts.get('payment', 'order-1')).toBeNull();
  });
});
